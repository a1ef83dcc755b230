/**
 * Per-session loaded sets: the deferred tools each session's searches
 * returned, kept in the host's state store (`host.state`) so that every
 * replica of a fleet lists what a session loaded on any of them. A session's
 * set is one map (tool → when it was loaded and last found), written field by
 * field so two replicas searching for one session at once keep each other's
 * tools; it lives `search.sessions.ttlMs` from its last use, and within it the
 * least recently found tool is unloaded past `maxTools`. A call without a
 * session id uses one default session (shared by the hosts of one store).
 *
 * This process also keeps an LRU of the sessions it served (bounded by
 * `search.sessions.max`): `explain` reports it, and with the memory store a
 * session it drops is dropped from the store too, as before the store. When
 * the store fails, a listing shows no loaded tools and a search loads none
 * (one warning until the store answers again); nothing waits on it longer
 * than the store's own fail-fast bound.
 */
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../state/clock.js';
import type { SessionReport } from '../public-types.js';
import type { StateStore } from '../../state/store-contract.js';

/** Bounds of the loaded sets (config `search.sessions`). */
interface SessionLimits {
  /** sessions this process keeps track of; the least recently used is dropped past it */
  max: number;
  /** a session unused this long is dropped; 0 keeps sessions until the LRU drops them */
  ttlMs: number;
  /** tools one session may have loaded */
  maxTools: number;
}

/** What this process last saw of a session: its loaded tools in load order, and when it was used. */
interface Seen {
  tools: string[];
  lastUsed: number;
}

/**
 * A loaded tool in the store: [when its first search loaded it, its rank in that search, when a search last found it].
 */
type Stamp = [loadedAt: number, rank: number, foundAt: number];

// A key no caller can pass: session ids are strings, and this is a symbol.
const DEFAULT_SESSION = Symbol('default session');
type Key = string | typeof DEFAULT_SESSION;

/** The store key of a session's loaded set (the default session's cannot collide with a named one). */
function storeKey(key: Key): string {
  return typeof key === 'string' ? `search:loaded:s:${key}` : 'search:loaded:default';
}

/** The loaded sets of every session, in the state store. */
export class SessionStore {
  private readonly seen: LRUCache<Key, Seen>;
  private failing = false;

  constructor(
    private readonly limits: SessionLimits,
    private readonly clock: Clock,
    private readonly state: StateStore,
    /** told once when the store stops answering (and again after it recovered and failed anew) */
    private readonly warn: (message: string) => void = () => {},
  ) {
    this.seen = new LRUCache<Key, Seen>({
      max: limits.max,
      ...(limits.ttlMs > 0 ? { ttl: limits.ttlMs, updateAgeOnGet: true } : {}),
      // The host's clock (tests move it by hand); checked on every access, not once per millisecond.
      perf: { now: () => clock.now() },
      ttlResolution: 0,
      // One process's store is this process's: a session it drops is gone, as the LRU alone did before.
      dispose: (_value, key, reason) => {
        if (state.kind === 'memory' && reason === 'evict') void state.delete(storeKey(key)).catch(() => {});
      },
    });
  }

  /** Adds `names` (in rank order) to the session's set; returns the ones that were not loaded before. */
  async load(sessionId: string | undefined, names: readonly string[]): Promise<string[]> {
    const key = sessionId ?? DEFAULT_SESSION;
    const now = this.clock.now();
    const stored = await this.read(key);
    if (!stored) return [];
    const added = names.filter((name) => !stored.has(name));
    const fields: Record<string, string> = {};
    names.forEach((name, rank) => {
      const [loadedAt, loadedRank] = stored.get(name) ?? [now, rank];
      const stamp: Stamp = [loadedAt, loadedRank, now];
      fields[name] = JSON.stringify(stamp);
      stored.set(name, stamp);
    });
    const unloaded = overflow(stored, this.limits.maxTools);
    try {
      await this.state.mapSet(storeKey(key), fields, this.ttlMs);
      if (unloaded.length) await this.state.mapDelete(storeKey(key), unloaded);
    } catch (error) {
      this.failed(error);
      return [];
    }
    this.recovered();
    for (const name of unloaded) stored.delete(name);
    this.remember(key, stored);
    return added.filter((name) => stored.has(name));
  }

  /**
   * The session's loaded tools in load order (empty for an unknown or expired session, or while the store fails);
   * counts as a use.
   */
  async loaded(sessionId: string | undefined): Promise<readonly string[]> {
    const key = sessionId ?? DEFAULT_SESSION;
    const stored = await this.read(key);
    if (!stored?.size) return [];
    if (this.ttlMs > 0) void this.state.touch(storeKey(key), this.ttlMs).catch((error: unknown) => this.failed(error));
    return this.remember(key, stored);
  }

  /** Whether the session has `name` loaded, as this process last saw it; does not count as a use. */
  has(sessionId: string | undefined, name: string): boolean {
    return this.seen.peek(sessionId ?? DEFAULT_SESSION)?.tools.includes(name) ?? false;
  }

  /** The sessions this process served, most recently used first, with their tools as it last read them. */
  report(): SessionReport[] {
    this.seen.purgeStale();
    const now = this.clock.now();
    return [...this.seen.entries()].map(([key, entry]) => ({
      id: typeof key === 'string' ? key : null,
      tools: [...entry.tools],
      idleMs: now - entry.lastUsed,
    }));
  }

  /**
   * A stored set's time to live: the configured one, else (0 means "until the bound drops it") a day, so a fleet's
   * store does not keep it forever.
   */
  private get ttlMs(): number {
    return this.limits.ttlMs > 0 ? this.limits.ttlMs : this.state.kind === 'memory' ? 0 : 24 * 60 * 60 * 1000;
  }

  /** The session's stored set, or undefined when the store failed. */
  private async read(key: Key): Promise<Map<string, Stamp> | undefined> {
    let fields: Record<string, string>;
    try {
      fields = await this.state.mapGet(storeKey(key));
    } catch (error) {
      this.failed(error);
      return undefined;
    }
    this.recovered();
    const stored = new Map<string, Stamp>();
    for (const [name, value] of Object.entries(fields)) {
      const stamp = parseStamp(value);
      if (stamp) stored.set(name, stamp);
    }
    return stored;
  }

  /** Notes what the store holds for `key` now; returns its tools in load order. */
  private remember(key: Key, stored: Map<string, Stamp>): string[] {
    const tools = [...stored].sort(([, a], [, b]) => a[0] - b[0] || a[1] - b[1]).map(([name]) => name);
    this.seen.set(key, { tools, lastUsed: this.clock.now() });
    return tools;
  }

  private failed(error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.warn(
      `tool search: the state store failed (${(error as Error)?.message ?? String(error)}); sessions' loaded ` +
        `tools are not listed until it answers`,
    );
  }

  private recovered(): void {
    this.failing = false;
  }
}

/** A stored stamp, or undefined for a value this version did not write. */
function parseStamp(value: string): Stamp | undefined {
  try {
    const stamp = JSON.parse(value) as unknown;
    return Array.isArray(stamp) && stamp.length === 3 && stamp.every((n) => typeof n === 'number')
      ? (stamp as Stamp)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The tools to unload so at most `max` stay: the least recently found first. */
function overflow(stored: Map<string, Stamp>, max: number): string[] {
  const excess = stored.size - max;
  if (excess <= 0) return [];
  return [...stored]
    .sort(([, a], [, b]) => a[2] - b[2] || a[0] - b[0] || a[1] - b[1])
    .slice(0, excess)
    .map(([name]) => name);
}
