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
 * each replica holds its own `inFlight`. A store that does not answer cannot count, so by default
 * the identity's calls are refused (STATE_UNAVAILABLE, naming the store) until it answers again:
 * a quota that lapses whenever the store is down is no limit. `quota.onStoreDown: 'allow'` is the
 * operator's choice to let them through uncounted instead (a fair-use limit, not a boundary);
 * either way the operator is told once per outage.
 */
import { failure, type CallOutcome } from '../../boundary/outcome.js';
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

/** A refused call's outcome. */
type Refusal = CallOutcome;

/**
 * The refusal for the call that made `count` this window (from the clock time `now`), or undefined when it is within
 * the quota.
 */
export function minuteDecision(identity: Identity, quota: RuleQuota, count: number, now: number): Refusal | undefined {
  const limit = quota.limits.callsPerMinute;
  if (limit === undefined || count <= limit) return undefined;
  const retryAfterMs = (Math.floor(now / WINDOW_MS) + 1) * WINDOW_MS - now;
  const seconds = Math.ceil(retryAfterMs / 1000);
  const message =
    `${identity.subject} has started its ${limit} call${limit === 1 ? '' : 's'} for this minute under access ` +
    `rule '${quota.rule}' (quota.callsPerMinute); retry in ${seconds} s`;
  return { ok: false, code: 'QUOTA_EXCEEDED', message, retryAfterMs };
}

/**
 * What a call under `quota` gets while the state store cannot count it (`why`: the store's error):
 * refused with STATE_UNAVAILABLE, unless the rule says `onStoreDown: 'allow'`; and the operator's
 * warning for the outage.
 */
export function storeDownDecision(
  identity: Identity,
  quota: RuleQuota,
  why: string,
): { refused: Refusal | undefined; warning: string } {
  if (quota.limits.onStoreDown === 'allow') {
    return {
      refused: undefined,
      warning:
        `quota.callsPerMinute of access rule '${quota.rule}' is not enforced while the state store fails ` +
        `(quota.onStoreDown: 'allow'): ${why}`,
    };
  }
  const message =
    `${identity.subject}'s calls cannot be counted against quota.callsPerMinute of access rule '${quota.rule}': ` +
    `the state store is unreachable, so the call was refused (quota.onStoreDown: 'refuse'); retry when it is back`;
  return {
    refused: failure('STATE_UNAVAILABLE', message),
    warning:
      `quota.callsPerMinute of access rule '${quota.rule}' refuses calls while the state store fails ` +
      `(quota.onStoreDown: 'refuse'): ${why}`,
  };
}

/** The quota counters of one host, shared by every surface made for an identity. */
export class Quotas {
  /** calls running now, per identity key (an entry only while one runs) */
  private readonly running = new Map<string, number>();
  /** rules whose operator was told the store fails, until it answers again (one warning per rule and outage) */
  private readonly toldDown = new Set<string>();

  constructor(private readonly deps: QuotaDeps) {}

  /** Admits a call `identity` makes under `quota`, or refuses it with QUOTA_EXCEEDED. */
  async admit(identity: Identity, quota: RuleQuota): Promise<Admission> {
    const key = identityKey(identity);
    // Checked and taken before anything is awaited, so calls made at once are counted exactly.
    const { inFlight, callsPerMinute } = quota.limits;
    const running = this.running.get(key) ?? 0;
    if (inFlight !== undefined && running >= inFlight) {
      return {
        refused: failure(
          'QUOTA_EXCEEDED',
          `${identity.subject} already has ${running} call${running === 1 ? '' : 's'} running, the most access ` +
            `rule '${quota.rule}' allows at once (quota.inFlight); retry when one ends`,
        ),
      };
    }
    this.running.set(key, running + 1);
    const release = () => this.release(key);
    if (callsPerMinute === undefined) return { release };
    const refused = await this.countMinute(identity, key, quota);
    if (!refused) return { release };
    release();
    return { refused };
  }

  /** Counts a call in this minute's window: undefined when it may run, else the refusal. */
  private async countMinute(identity: Identity, key: string, quota: RuleQuota): Promise<Refusal | undefined> {
    const now = this.deps.clock.now();
    const window = Math.floor(now / WINDOW_MS);
    let count: number;
    try {
      count = await this.deps.store.increment(`access:calls:${key}:${window}`, 1, 2 * WINDOW_MS);
    } catch (error) {
      const decision = storeDownDecision(identity, quota, (error as Error).message);
      if (!this.toldDown.has(quota.rule)) this.deps.warn(decision.warning);
      this.toldDown.add(quota.rule);
      return decision.refused;
    }
    this.toldDown.clear();
    return minuteDecision(identity, quota, count, now);
  }

  private release(key: string): void {
    const left = (this.running.get(key) ?? 1) - 1;
    if (left > 0) this.running.set(key, left);
    else this.running.delete(key);
  }
}
