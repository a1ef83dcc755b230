/**
 * The state store: what the toolsheds of a fleet share about sessions. One
 * machine needs nothing (in-process memory, the default); a fleet names a
 * Valkey or Redis server (`state.store: 'redis://…'`) and every replica sees
 * the same loaded sets, client capabilities, held calls, breaker counts,
 * rate counters and plugins' `ctx.session` values.
 *
 * Values are strings (callers keep JSON in them) or maps of strings; every
 * key has a time to live, refreshed by whoever writes it. Messages between
 * replicas (an approval answered on another replica) go through publish and
 * subscribe. Keys are the callers' own; the store puts its prefix in front.
 */
import { EventEmitter } from 'node:events';
import type { StateStore } from './store-contract.js';
import { systemClock, timers } from './clock.js';
import type { Clock } from './clock.js';

export type { StateStore } from './store-contract.js';

/** How to open a store (config `state`). */
interface StateStoreOptions {
  /** 'memory', or a `redis://` / `rediss://` / `valkey://` / `valkeys://` URL */
  store: string;
  /** put in front of every key and channel, so fleets may share one server (default 'toolshed:') */
  prefix?: string;
  /** the clock of a memory store's expiry (tests move it) */
  clock?: Clock;
}

/** Whether `store` names a Valkey or Redis server. */
function isRemoteStore(store: string): boolean {
  return /^(redis|rediss|valkey|valkeys):\/\//i.test(store);
}

/** Opens the store the config names; a remote one connects on first use (its client library loads only then). */
export async function openStateStore(options: StateStoreOptions): Promise<StateStore> {
  const prefix = options.prefix ?? 'toolshed:';
  if (options.store === 'memory') return new MemoryStore(options.clock);
  if (!isRemoteStore(options.store))
    throw new Error(`state.store must be 'memory' or a redis:// or valkey:// URL, got '${options.store}'`);
  const { RedisStore } = await import('./redis-store.js');
  return new RedisStore(options.store, prefix);
}

interface Entry {
  value: string | Map<string, string>;
  /** when it expires (clock ms), or Infinity */
  expires: number;
}

/** The store of one process: a map with expiry, and an event emitter for messages. */
export class MemoryStore implements StateStore {
  readonly kind = 'memory' as const;
  readonly errors = 0;
  private readonly entries = new Map<string, Entry>();
  private readonly channels = new EventEmitter();
  private stopSweeping: (() => void) | undefined;

  constructor(private readonly clock: Clock = systemClock) {
    this.channels.setMaxListeners(0);
    // Expired entries are dropped when read, and swept once a minute so unread ones go too.
    this.stopSweeping = timers(clock).every(60_000, () => this.sweep(), { unref: true });
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expires <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private expiry(ttlMs: number): number {
    return ttlMs > 0 ? this.clock.now() + ttlMs : Infinity;
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.entries) if (entry.expires <= now) this.entries.delete(key);
  }

  async get(key: string): Promise<string | undefined> {
    const entry = this.live(key);
    return typeof entry?.value === 'string' ? entry.value : undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.entries.set(key, { value, expires: this.expiry(ttlMs) });
  }

  async delete(key: string): Promise<boolean> {
    const had = this.live(key) !== undefined;
    this.entries.delete(key);
    return had;
  }

  async touch(key: string, ttlMs: number): Promise<boolean> {
    const entry = this.live(key);
    if (entry) entry.expires = this.expiry(ttlMs);
    return entry !== undefined;
  }

  async increment(key: string, by: number, ttlMs: number): Promise<number> {
    const entry = this.live(key);
    const now = entry && typeof entry.value === 'string' ? Number(entry.value) : 0;
    if (!Number.isInteger(now)) throw new Error(`state store: ${key} holds no integer`);
    const value = String(now + by);
    if (entry) entry.value = value;
    else this.entries.set(key, { value, expires: this.expiry(ttlMs) });
    return now + by;
  }

  async mapGet(key: string): Promise<Record<string, string>> {
    const entry = this.live(key);
    return entry && typeof entry.value !== 'string' ? Object.fromEntries(entry.value) : {};
  }

  async mapSet(key: string, fields: Readonly<Record<string, string>>, ttlMs: number): Promise<void> {
    const entry = this.live(key);
    const map = entry && typeof entry.value !== 'string' ? entry.value : new Map<string, string>();
    for (const [field, value] of Object.entries(fields)) map.set(field, value);
    this.entries.set(key, { value: map, expires: this.expiry(ttlMs) });
  }

  async mapDelete(key: string, fields: readonly string[]): Promise<void> {
    const entry = this.live(key);
    if (!entry || typeof entry.value === 'string') return;
    for (const field of fields) entry.value.delete(field);
    if (entry.value.size === 0) this.entries.delete(key);
  }

  async publish(channel: string, message: string): Promise<void> {
    // Delivered after the publisher's turn, as a remote store would.
    queueMicrotask(() => this.channels.emit(channel, message));
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    this.channels.on(channel, listener);
    return async () => void this.channels.off(channel, listener);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.stopSweeping?.();
    this.stopSweeping = undefined;
    this.entries.clear();
    this.channels.removeAllListeners();
  }
}
