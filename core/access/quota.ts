/**
 * Quotas per identity (config `access[].quota`): how many calls an identity may start a minute,
 * and how many it may have running at once. Only the calls it makes count; the nested calls its
 * tools make (ctx.callTool, execute_code) ride on the call that made them.
 *
 * Calls a minute are counted in the state store, so a fleet sharing one counts them together:
 * one counter per identity per clock minute (a fixed window, not a sliding one), which allows at
 * most `callsPerMinute` starts in each minute, and so up to twice that across a minute's edge.
 * Calls running at once are counted in this process: a store counter is only as good as its
 * decrement, and a replica that died mid-call would leave its identity locked out. In a fleet
 * each replica holds its own `inFlight`. A store that does not answer lets calls through (the
 * quota is a fair-use limit; access rules, which never need the store, are the boundary) and
 * says so once per outage.
 */
import { failure } from '../../boundary/outcome.js';
import type { AccessQuota } from '../config/public-types.js';
import type { Admission } from '../call/dispatch.js';
import type { Identity } from '../../boundary/identity.js';
import type { StateStore } from '../state/store-contract.js';

/** The window calls a minute are counted in. */
const WINDOW_MS = 60_000;

/** A quota in force: the rule that sets it, and its limits. */
export interface RuleQuota {
  /** the rule's name, for refusals */
  rule: string;
  limits: AccessQuota;
}

/** What counting needs from the host. */
interface QuotaDeps {
  /** where calls a minute are counted (the host's state store) */
  store: StateStore;
  clock: { now(): number };
  /** tells the operator the store failed (once per outage) */
  warn(message: string): void;
}

/** One identity's key: who vouched for it, and who it is. */
function identityKey(identity: Identity): string {
  return `${encodeURIComponent(identity.issuer ?? '')}:${encodeURIComponent(identity.subject)}`;
}

/** The quota counters of one host, shared by every surface made for an identity. */
export class Quotas {
  /** calls running now, per identity key (an entry only while one runs) */
  private readonly running = new Map<string, number>();
  private storeDown = false;

  constructor(private readonly deps: QuotaDeps) {}

  /** Admits a call `identity` makes under `quota`, or refuses it with QUOTA_EXCEEDED. */
  async admit(identity: Identity, quota: RuleQuota): Promise<Admission> {
    const key = identityKey(identity);
    // Checked and taken before anything is awaited, so calls made at once are counted exactly.
    const { inFlight, callsPerMinute } = quota.limits;
    const running = this.running.get(key) ?? 0;
    if (inFlight !== undefined && running >= inFlight) {
      return {
        refused: failure('QUOTA_EXCEEDED', `${identity.subject} already has ${running} call${running === 1 ? '' : 's'} running, the most access rule '${quota.rule}' allows at once (quota.inFlight); retry when one ends`),
      };
    }
    this.running.set(key, running + 1);
    const release = () => this.release(key);
    if (callsPerMinute === undefined) return { release };
    const retryAfterMs = await this.overMinute(key, callsPerMinute);
    if (retryAfterMs === undefined) return { release };
    release();
    const seconds = Math.ceil(retryAfterMs / 1000);
    const message = `${identity.subject} has started its ${callsPerMinute} call${callsPerMinute === 1 ? '' : 's'} for this minute under access rule '${quota.rule}' (quota.callsPerMinute); retry in ${seconds} s`;
    return { refused: { ok: false, code: 'QUOTA_EXCEEDED', message, retryAfterMs } };
  }

  /** Counts a call in this minute's window; how long until the next one when it is over the limit. */
  private async overMinute(key: string, limit: number): Promise<number | undefined> {
    const now = this.deps.clock.now();
    const window = Math.floor(now / WINDOW_MS);
    try {
      const count = await this.deps.store.increment(`access:calls:${key}:${window}`, 1, 2 * WINDOW_MS);
      this.storeDown = false;
      return count > limit ? (window + 1) * WINDOW_MS - now : undefined;
    } catch (error) {
      if (!this.storeDown) this.deps.warn(`quota.callsPerMinute is not enforced while the state store fails: ${(error as Error).message}`);
      this.storeDown = true;
      return undefined;
    }
  }

  private release(key: string): void {
    const left = (this.running.get(key) ?? 1) - 1;
    if (left > 0) this.running.set(key, left);
    else this.running.delete(key);
  }
}
