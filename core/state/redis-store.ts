/**
 * The state store on a Valkey or Redis server (ioredis), shared by every
 * replica that names the same URL. A command fails fast while the server is
 * unreachable (one retry, no unbounded offline queue), and the client keeps
 * reconnecting in the background, so a replica degrades (and says so in
 * `/readyz` and the `errors` count) instead of hanging its calls.
 */
import { Redis } from 'ioredis';
import type { StateStore } from './store-contract.js';

// INCRBY that gives a new key its time to live, in one round trip and atomically.
const INCREMENT = `local v = redis.call('INCRBY', KEYS[1], ARGV[1])
if v == tonumber(ARGV[1]) and tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return v`;

/** ioredis speaks redis:// and rediss://; valkey:// and valkeys:// are the same protocol. */
function redisUrl(url: string): string {
  return url.replace(/^valkey(s?):\/\//i, 'redis$1://');
}

/** A store on a Valkey or Redis server. */
export class RedisStore implements StateStore {
  readonly kind = 'redis' as const;
  private failed = 0;
  private readonly client: Redis;
  private subscriber: Redis | undefined;
  private readonly listeners = new Map<string, Set<(message: string) => void>>();

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.client = new Redis(redisUrl(url), {
      lazyConnect: true,
      connectTimeout: 2_000,
      maxRetriesPerRequest: 1,
      // Reconnect quickly, and never slower than once a second.
      retryStrategy: (times) => Math.min(50 * times, 1_000),
    });
    // Errors are counted where a command fails; the client's own 'error' events would otherwise be thrown.
    this.client.on('error', () => {});
  }

  get errors(): number {
    return this.failed;
  }

  private async run<T>(command: Promise<T>): Promise<T> {
    try {
      return await command;
    } catch (error) {
      this.failed++;
      throw new Error(`state store unreachable: ${(error as Error).message}`, { cause: error });
    }
  }

  private key(key: string): string {
    return this.prefix + key;
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.run(this.client.get(this.key(key)))) ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.run(
      ttlMs > 0 ? this.client.set(this.key(key), value, 'PX', ttlMs) : this.client.set(this.key(key), value),
    );
  }

  async delete(key: string): Promise<boolean> {
    return (await this.run(this.client.del(this.key(key)))) > 0;
  }

  async touch(key: string, ttlMs: number): Promise<boolean> {
    const done = ttlMs > 0 ? this.client.pexpire(this.key(key), ttlMs) : this.client.persist(this.key(key));
    if (ttlMs > 0) return (await this.run(done)) === 1;
    // PERSIST answers 0 for a key with no expiry too: ask whether it exists.
    await this.run(done);
    return (await this.run(this.client.exists(this.key(key)))) === 1;
  }

  async increment(key: string, by: number, ttlMs: number): Promise<number> {
    return Number(await this.run(this.client.eval(INCREMENT, 1, this.key(key), by, ttlMs)));
  }

  async mapGet(key: string): Promise<Record<string, string>> {
    return this.run(this.client.hgetall(this.key(key)));
  }

  async mapSet(key: string, fields: Readonly<Record<string, string>>, ttlMs: number): Promise<void> {
    const pipeline = this.client.multi().hset(this.key(key), fields);
    if (ttlMs > 0) pipeline.pexpire(this.key(key), ttlMs);
    else pipeline.persist(this.key(key));
    const results = await this.run(pipeline.exec());
    const failure = results?.find(([error]) => error)?.[0];
    if (failure) {
      this.failed++;
      throw failure;
    }
  }

  async mapDelete(key: string, fields: readonly string[]): Promise<void> {
    if (fields.length) await this.run(this.client.hdel(this.key(key), ...fields));
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.run(this.client.publish(this.key(channel), message));
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    const full = this.key(channel);
    if (!this.subscriber) {
      // A subscribed connection can only (un)subscribe: messages get their own.
      this.subscriber = this.client.duplicate();
      this.subscriber.on('error', () => {});
      this.subscriber.on('message', (from: string, message: string) => {
        // A listener that throws must not take the process down (ioredis would rethrow it): the
        // host's listeners (signed-messages.ts) count and drop what they cannot take.
        for (const each of this.listeners.get(from) ?? []) {
          try {
            each(message);
          } catch {}
        }
      });
    }
    let set = this.listeners.get(full);
    if (!set) {
      set = new Set();
      this.listeners.set(full, set);
      await this.run(this.subscriber.subscribe(full));
    }
    set.add(listener);
    return async () => {
      const current = this.listeners.get(full);
      if (!current?.delete(listener) || current.size > 0) return;
      this.listeners.delete(full);
      await this.subscriber?.unsubscribe(full).catch(() => {});
    };
  }

  async ping(): Promise<void> {
    await this.run(this.client.ping());
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await Promise.allSettled([this.client.quit(), this.subscriber?.quit()]);
    this.client.disconnect();
    this.subscriber?.disconnect();
  }
}
