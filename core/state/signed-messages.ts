/**
 * Messages between the replicas of a fleet, authenticated. Whoever can write to a shared state
 * store can publish on its channels, so a message is believed only when it carries an HMAC
 * (SHA-256) made with the key every replica of the fleet shares (`TOOLSHED_STATE_KEY`,
 * docs/fleet.md#the-fleets-message-key). The MAC covers the channel, the time it was sent and a
 * random id besides the text, so a message cannot be moved to another channel, and one replayed
 * is refused: too old (past MAX_AGE_MS, either way, for clocks a little apart), or seen already.
 *
 * Anything else on a channel (not JSON, a wrong or missing MAC, a message a listener cannot
 * take) is dropped and counted, never thrown: one bad message must not take a replica down.
 * Signing proves who wrote a message, it hides nothing: the store's own access control (and
 * TLS, `rediss://`) keeps others from reading it.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../../boundary/errors.js';
import type { StateStore } from './store-contract.js';

/** The environment variable that holds the fleet's message key. */
export const STATE_KEY_ENV = 'TOOLSHED_STATE_KEY';

/** The shortest key taken: 32 characters (`openssl rand -hex 32` makes 64). */
export const MIN_KEY_CHARS = 32;

/** How far a message's time may be from the receiver's clock, either way. */
export const MAX_AGE_MS = 60_000;

/** Message ids remembered to refuse replays (at most; the oldest go first past it). */
const MAX_SEEN = 100_000;

/** What goes over the store: the text, and what its MAC covers besides. */
interface Envelope {
  v: 1;
  /** when it was sent (the sender's clock, ms) */
  t: number;
  /** a random id, once per message */
  n: string;
  m: string;
  /** the MAC, base64url */
  s: string;
}

/** The MAC of `message` on `channel`, sent at `time` with id `id`. */
function mac(key: string, channel: string, time: number, id: string, message: string): Buffer {
  return createHmac('sha256', key)
    .update(`toolshed state message v1\n${channel}\n${time}\n${id}\n`)
    .update(message)
    .digest();
}

/** `message` as it goes on `channel`: signed with `key` at `now`. */
export function signMessage(
  key: string,
  channel: string,
  message: string,
  now: number,
  id: string = randomUUID(),
): string {
  const envelope: Envelope = {
    v: 1,
    t: now,
    n: id,
    m: message,
    s: mac(key, channel, now, id, message).toString('base64url'),
  };
  return JSON.stringify(envelope);
}

/** A message received: its text and id, or why it was dropped. */
export type Verified = { ok: true; message: string; id: string; time: number } | { ok: false; reason: string };

/** Checks `raw` received on `channel` at `now`: its shape, its MAC, its age. Never throws. */
export function verifyMessage(key: string, channel: string, raw: string, now: number): Verified {
  let envelope: Partial<Envelope>;
  try {
    envelope = JSON.parse(raw) as Partial<Envelope>;
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (typeof envelope !== 'object' || envelope === null) return { ok: false, reason: 'not a signed message' };
  const { v, t, n, m, s } = envelope;
  if (
    v !== 1 ||
    typeof t !== 'number' ||
    !Number.isSafeInteger(t) ||
    typeof n !== 'string' ||
    typeof m !== 'string' ||
    typeof s !== 'string'
  )
    return { ok: false, reason: 'not a signed message' };
  const expected = mac(key, channel, t, n, m);
  const given = Buffer.from(s, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'its signature does not match (another key, or changed on the way)' };
  if (Math.abs(now - t) > MAX_AGE_MS)
    return {
      ok: false,
      reason:
        `sent ${Math.round((now - t) / 1000)} s from now, past the ${MAX_AGE_MS / 1000} s allowed (replayed, or ` +
        `a clock far off)`,
    };
  return { ok: true, message: m, id: n, time: t };
}

/** Ids of messages taken within MAX_AGE_MS, to refuse a replay of one. */
class SeenIds {
  /** id → the message's time, in the order taken */
  private readonly ids = new Map<string, number>();

  /** Whether `id` was taken already; notes it when not. */
  seen(id: string, time: number, now: number): boolean {
    for (const [old, at] of this.ids) {
      if (at >= now - MAX_AGE_MS && this.ids.size < MAX_SEEN) break;
      this.ids.delete(old);
    }
    if (this.ids.has(id)) return true;
    this.ids.set(id, time);
    return false;
  }
}

/** How a signed store tells of what it dropped. */
interface SignedOptions {
  clock: { now(): number };
  /** a dropped message: the channel and why (rate-limit what you log) */
  onDropped(channel: string, reason: string): void;
}

/**
 * `store` with its messages signed and checked: publish signs, and a subscriber hears only
 * messages signed with `key` for its channel, once each. Keys and values pass as they are.
 */
export class SignedStore implements StateStore {
  private droppedCount = 0;

  constructor(
    private readonly store: StateStore,
    private readonly key: string,
    private readonly options: SignedOptions,
  ) {}

  get kind(): StateStore['kind'] {
    return this.store.kind;
  }

  get errors(): number {
    return this.store.errors;
  }

  /** Messages dropped: malformed, unauthenticated, replayed, or one a listener could not take. */
  get dropped(): number {
    return this.droppedCount;
  }

  get(key: string): Promise<string | undefined> {
    return this.store.get(key);
  }
  set(key: string, value: string, ttlMs: number): Promise<void> {
    return this.store.set(key, value, ttlMs);
  }
  delete(key: string): Promise<boolean> {
    return this.store.delete(key);
  }
  touch(key: string, ttlMs: number): Promise<boolean> {
    return this.store.touch(key, ttlMs);
  }
  increment(key: string, by: number, ttlMs: number): Promise<number> {
    return this.store.increment(key, by, ttlMs);
  }
  mapGet(key: string): Promise<Record<string, string>> {
    return this.store.mapGet(key);
  }
  mapSet(key: string, fields: Readonly<Record<string, string>>, ttlMs: number): Promise<void> {
    return this.store.mapSet(key, fields, ttlMs);
  }
  mapDelete(key: string, fields: readonly string[]): Promise<void> {
    return this.store.mapDelete(key, fields);
  }
  ping(): Promise<void> {
    return this.store.ping();
  }
  close(): Promise<void> {
    return this.store.close();
  }

  publish(channel: string, message: string): Promise<void> {
    return this.store.publish(channel, signMessage(this.key, channel, message, this.options.clock.now()));
  }

  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    // Each listener hears a message once (two listeners of one channel each hear it).
    const seen = new SeenIds();
    return this.store.subscribe(channel, (raw) => {
      const now = this.options.clock.now();
      const verified = verifyMessage(this.key, channel, raw, now);
      if (!verified.ok) return this.drop(channel, verified.reason);
      if (seen.seen(verified.id, verified.time, now)) return this.drop(channel, 'a replay of a message already taken');
      try {
        listener(verified.message);
      } catch (error) {
        this.drop(channel, `its listener failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  }

  private drop(channel: string, reason: string): void {
    this.droppedCount++;
    this.options.onDropped(channel, reason);
  }
}

/** How often (at most) a dropped message is told of, besides the count. */
const TELL_EVERY_MS = 60_000;

/**
 * The store a host uses: `store` itself when only this process can reach it (memory), else
 * wrapped so its messages are signed with the fleet's key from `env`. A shared store without a
 * key (or with one too short) is a config error: the host does not start rather than believe
 * whatever reaches its channels. Dropped messages are told of through `warn`, the first at once
 * and then at most once a minute, with the count.
 */
export function fleetStore(
  store: StateStore,
  env: Readonly<Record<string, string | undefined>>,
  clock: { now(): number },
  warn: (message: string) => void,
): StateStore {
  if (store.kind === 'memory') return store;
  const key = env[STATE_KEY_ENV];
  if (!key || key.length < MIN_KEY_CHARS) {
    const why = key ? `is ${key.length} characters long, under the ${MIN_KEY_CHARS} required` : 'is not set';
    throw new ConfigError(
      `state.store is shared (${store.kind}), and ${STATE_KEY_ENV} ${why}: the replicas of a fleet sign the ` +
        `messages they send each other through the store with that key, and believe no others`,
      {
        pointer: '/state/store',
        fix:
          `set ${STATE_KEY_ENV} to the same secret of ${MIN_KEY_CHARS} characters or more on every replica ` +
          `(openssl rand -hex 32; docs/fleet.md#the-fleets-message-key)`,
      },
    );
  }
  let toldAt: number | undefined;
  let untold = 0;
  return new SignedStore(store, key, {
    clock,
    onDropped: (channel, reason) => {
      untold++;
      const now = clock.now();
      if (toldAt !== undefined && now - toldAt < TELL_EVERY_MS) return;
      warn(
        `dropped ${untold} message${untold === 1 ? '' : 's'} on the state store's channels (the last on '` +
          `${channel}': ${reason}); counted in toolshed_state_messages_dropped_total`,
      );
      toldAt = now;
      untold = 0;
    },
  });
}
