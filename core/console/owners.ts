/**
 * Whose the console's sessions, calls and held calls are under `serve.auth`: an identity whose
 * access rule narrows the host sees only its own, and calls only in its own sessions (serve's
 * session of that id is its, or the id is claimed for it in the state store: the same records,
 * `mcp:owner:ID`, a stateless serve keeps). One operator (no identity), no access rules, or a
 * rule that narrows nothing: the full view.
 */
import { ownerKey } from '../http/caller.js';
import { matchRule } from '../access/rules.js';
import { StatelessClients } from '../mcp-server/sessions/stateless-clients.js';
import type { SessionSnapshot } from '../mcp-server/public-types.js';
import type { EventFilter } from './event-stream.js';
import type { PendingApproval, ShownIdentity } from './api-types.js';
import type { Identity } from '../../boundary/identity.js';
import type { ToolHost } from '../host/host.js';

/** The owner checks of one console over `host`. */
export class ConsoleOwners {
  // Who holds which session: the same records (`mcp:owner:ID` in the state store) a stateless serve keeps.
  private readonly owners: StatelessClients;

  constructor(
    private readonly host: ToolHost,
    /** serve's MCP sessions, when the console is mounted on serve */
    private readonly served: (() => SessionSnapshot[]) | undefined,
  ) {
    this.owners = new StatelessClients(host.state, host.config.state.sessionTtlMs, () => {});
  }

  /**
   * Whether `caller` sees every caller's sessions, calls and held calls: no identity (one operator), no access rules,
   * or a rule that narrows nothing.
   */
  seesAll(caller: Identity | undefined): boolean {
    const { access } = this.host.config;
    if (!caller || access.length === 0) return true;
    const rule = matchRule(access, caller)?.rule;
    return rule !== undefined && rule.enable === undefined && rule.disable === undefined && rule.defer === undefined;
  }

  /** Whether an entry (a call, a held call) is `caller`'s own. */
  owns(caller: Identity, entry: { identity?: ShownIdentity }): boolean {
    return ownerKey(entry.identity) === ownerKey(caller);
  }

  /** Of `list`, what `caller` may see: everything, or under a narrower rule its own entries. */
  visible<T extends { identity?: ShownIdentity }>(caller: Identity | undefined, list: T[]): T[] {
    return this.seesAll(caller) ? list : list.filter((entry) => this.owns(caller!, entry));
  }

  /**
   * Whether `caller` may call in session `id`: serve's own session of that id is its, or the id is its own (or no one's
   * yet, and then its); undefined when the store cannot tell.
   */
  async mayUse(id: string, caller: Identity): Promise<boolean | undefined> {
    const served = this.served?.().find((s) => s.id === id);
    if (served) return ownerKey(served.identity) === ownerKey(caller);
    try {
      return await this.owners.claim(id, ownerKey(caller));
    } catch {
      return undefined;
    }
  }

  /** Of `sessions`, those `caller` holds (a session whose owner the store cannot name is left out). */
  async ownSessions<T extends { id: string; identity?: ShownIdentity }>(
    sessions: T[],
    caller: Identity,
    served: boolean,
  ): Promise<T[]> {
    const mine = ownerKey(caller);
    if (served) return sessions.filter((s) => ownerKey(s.identity) === mine);
    const held = await Promise.all(sessions.map((s) => this.owners.owner(s.id).catch(() => undefined)));
    return sessions.filter((_, index) => held[index] === mine);
  }

  /**
   * The events an identity under a narrower rule sees: its own calls and held calls (and the settling of those), and
   * what is host-wide.
   */
  ownEvents(caller: Identity, held: PendingApproval[]): EventFilter {
    const shown = new Set(held.map((approval) => approval.id));
    return (event, data) => {
      const entry = data as { id?: string; identity?: ShownIdentity };
      if (event === 'call') return this.owns(caller, entry);
      if (event === 'approval') return this.owns(caller, entry) && Boolean(shown.add(entry.id!));
      if (event === 'settled') return shown.delete(entry.id!);
      return true;
    };
  }
}
