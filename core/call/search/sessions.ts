/**
 * Per-session loaded sets: the deferred tools each session's searches
 * returned. Sessions live in an LRU (a bound on how many are kept) with a
 * TTL refreshed on every use; within a session the least recently found
 * tool is unloaded past `maxTools`. A call without a session id uses one
 * default session.
 */
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../expose/public-types.js';
import type { SessionReport } from '../public-types.js';

/** Bounds of the store (config `search.sessions`). */
interface SessionLimits {
  /** sessions kept; the least recently used is dropped past it */
  max: number;
  /** a session unused this long is dropped; 0 keeps sessions until the LRU drops them */
  ttlMs: number;
  /** tools one session may have loaded */
  maxTools: number;
}

/** A session's loaded tools: insertion order is load order; `found` is when a search last returned it. */
interface Loaded {
  tools: Map<string, number>;
  lastUsed: number;
}

// A key no caller can pass: session ids are strings, and this is a symbol.
const DEFAULT_SESSION = Symbol('default session');
type Key = string | typeof DEFAULT_SESSION;

/** The loaded sets of every live session. */
export class SessionStore {
  private readonly sessions: LRUCache<Key, Loaded>;

  constructor(
    private readonly limits: SessionLimits,
    private readonly clock: Clock,
  ) {
    this.sessions = new LRUCache<Key, Loaded>({
      max: limits.max,
      ...(limits.ttlMs > 0 ? { ttl: limits.ttlMs, updateAgeOnGet: true } : {}),
      // The host's clock (tests move it by hand); checked on every access, not once per millisecond.
      perf: { now: () => clock.now() },
      ttlResolution: 0,
    });
  }

  /** Adds `names` to the session's set; returns the ones that were not loaded before. */
  load(sessionId: string | undefined, names: readonly string[]): string[] {
    const key = sessionId ?? DEFAULT_SESSION;
    const now = this.clock.now();
    const entry = this.sessions.get(key) ?? { tools: new Map<string, number>(), lastUsed: now };
    const added: string[] = [];
    for (const name of names) {
      if (!entry.tools.has(name)) added.push(name);
      entry.tools.set(name, now);
    }
    while (entry.tools.size > this.limits.maxTools) entry.tools.delete(leastRecentlyFound(entry.tools));
    entry.lastUsed = now;
    this.sessions.set(key, entry);
    return added.filter((name) => entry.tools.has(name));
  }

  /** The session's loaded tools in load order (empty for an unknown or expired session); counts as a use. */
  loaded(sessionId: string | undefined): readonly string[] {
    const entry = this.sessions.get(sessionId ?? DEFAULT_SESSION);
    if (!entry) return [];
    entry.lastUsed = this.clock.now();
    return [...entry.tools.keys()];
  }

  /** Whether the session has `name` loaded; does not count as a use. */
  has(sessionId: string | undefined, name: string): boolean {
    return this.sessions.peek(sessionId ?? DEFAULT_SESSION)?.tools.has(name) ?? false;
  }

  /** Every live session, most recently used first. */
  report(): SessionReport[] {
    this.sessions.purgeStale();
    const now = this.clock.now();
    return [...this.sessions.entries()].map(([key, entry]) => ({ id: typeof key === 'string' ? key : null, tools: [...entry.tools.keys()], idleMs: now - entry.lastUsed }));
  }
}

function leastRecentlyFound(tools: Map<string, number>): string {
  let oldest: string | undefined;
  let at = Infinity;
  for (const [name, found] of tools) {
    if (found < at) {
      oldest = name;
      at = found;
    }
  }
  return oldest!;
}
