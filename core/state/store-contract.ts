/** What every state store does (store.ts opens one; memory and Redis implement it). */
/** The shared state of a fleet, or of one process. */
export interface StateStore {
  /** 'memory' (this process only) or 'redis' (Valkey or Redis, shared) */
  readonly kind: 'memory' | 'redis';
  /** The value at `key`, or undefined when there is none (or it expired). */
  get(key: string): Promise<string | undefined>;
  /** Sets `key` to `value`, expiring after `ttlMs` (0: never). */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Removes `key` (a value or a map); whether it was there. */
  delete(key: string): Promise<boolean>;
  /** Gives `key` (a value or a map) a new time to live; whether it was there. */
  touch(key: string, ttlMs: number): Promise<boolean>;
  /** Adds `by` to the integer at `key` (0 when new, and then expiring after `ttlMs`); the new value. */
  increment(key: string, by: number, ttlMs: number): Promise<number>;
  /** The map at `key` (empty when there is none). */
  mapGet(key: string): Promise<Record<string, string>>;
  /** Sets fields of the map at `key` and gives the map `ttlMs` to live (0: never). */
  mapSet(key: string, fields: Readonly<Record<string, string>>, ttlMs: number): Promise<void>;
  /** Removes fields of the map at `key`. */
  mapDelete(key: string, fields: readonly string[]): Promise<void>;
  /** Sends `message` to every subscriber of `channel`, in every replica (this one included). */
  publish(channel: string, message: string): Promise<void>;
  /** Listens on `channel` until the returned function is called. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  /** Resolves when the store answers (readiness); rejects with why not. */
  ping(): Promise<void>;
  /** Operations that failed so far (the store was unreachable, or refused). */
  readonly errors: number;
  /**
   * Messages dropped so far: malformed, unauthenticated or replayed (a fleet's store, whose messages are signed:
   * signed-messages.ts).
   */
  readonly dropped?: number;
  /** Closes connections; the store is unusable after. */
  close(): Promise<void>;
}
