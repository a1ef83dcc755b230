/**
 * The state store's contract, on both stores: in-process memory and a real
 * Redis (or Valkey) server started for this file. Every operation a fleet
 * relies on (values, maps, counters, expiry, messages between replicas) is
 * checked against each, and a store whose server is down fails fast.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore, openStateStore, type StateStore } from '#internal/core/state/store.js';
import { killLeftoversAfterAll, freePort, startStateServer, type StoreServer } from '../support/fleet.js';
import { ManualClock } from '../helpers.js';

killLeftoversAfterAll();

let server: StoreServer;
const opened: StateStore[] = [];

beforeAll(async () => {
  server = await startStateServer();
});

afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  await server?.stop();
});

async function open(kind: 'memory' | 'redis'): Promise<StateStore> {
  // A prefix per store, so the two runs of each test do not see each other's keys.
  const store = await openStateStore({
    store: kind === 'memory' ? 'memory' : server.url,
    prefix: `t${opened.length}:`,
    ...(kind === 'memory' ? { clock } : {}),
  });
  opened.push(store);
  return store;
}

/** the memory stores' clock (a Redis server expires keys on its own) */
const clock = new ManualClock(Date.now());

describe.each(['memory', 'redis'] as const)('%s store', (kind) => {
  it('keeps values, maps and counters, and deletes them', async () => {
    const store = await open(kind);
    expect(store.kind).toBe(kind);
    expect(await store.get('a')).toBeUndefined();
    await store.set('a', '{"x":1}', 0);
    expect(await store.get('a')).toBe('{"x":1}');
    expect(await store.delete('a')).toBe(true);
    expect(await store.delete('a')).toBe(false);

    await store.mapSet('m', { one: '1', two: '2' }, 0);
    await store.mapSet('m', { two: 'II' }, 0);
    expect(await store.mapGet('m')).toEqual({ one: '1', two: 'II' });
    await store.mapDelete('m', ['one']);
    expect(await store.mapGet('m')).toEqual({ two: 'II' });
    expect(await store.mapGet('none')).toEqual({});

    expect(await store.increment('n', 2, 0)).toBe(2);
    expect(await store.increment('n', 3, 0)).toBe(5);
    await store.ping();
  });

  it('expires keys after their time to live, and touch gives them more', async () => {
    const store = await open(kind);
    await store.set('short', 'v', 150);
    await store.mapSet('map', { f: 'v' }, 150);
    await store.increment('count', 1, 150);
    await store.set('kept', 'v', 150);
    expect(await store.touch('kept', 60_000)).toBe(true);
    // Redis expires on its own clock: the test waits until it has; the memory store's clock is moved.
    if (kind === 'memory') clock.advance(400);
    await expect
      .poll(async () => [await store.get('short'), await store.mapGet('map'), await store.get('count')], {
        timeout: 5_000,
      })
      .toEqual([undefined, {}, undefined]);
    expect(await store.mapGet('map')).toEqual({});
    expect(await store.increment('count', 1, 150)).toBe(1);
    expect(await store.get('kept')).toBe('v');
    expect(await store.touch('short', 1_000)).toBe(false);
  });

  it('delivers published messages to every subscriber until it unsubscribes', async () => {
    const publisher = await open(kind);
    // Two replicas: for redis, two clients of one server; for memory, one process.
    const other =
      kind === 'redis'
        ? await openStateStore({ store: server.url, prefix: (publisher as unknown as { prefix: string }).prefix })
        : publisher;
    if (other !== publisher) opened.push(other);
    const heard: string[] = [];
    const unsubscribe = await other.subscribe('answers', (message) => heard.push(message));
    await other.subscribe('answers-done', (message) => heard.push(message));
    await publisher.publish('answers', 'first');
    await expect.poll(() => heard).toEqual(['first']);
    await unsubscribe();
    await publisher.publish('answers', 'second');
    await publisher.publish('elsewhere', 'third');
    // Messages on one connection arrive in order: once this one is heard, the two before it would have been.
    await publisher.publish('answers-done', 'fourth');
    await expect.poll(() => heard).toEqual(['first', 'fourth']);
  });
});

it('a memory store expires on the clock it is given', async () => {
  let now = 1_000;
  const store = new MemoryStore({ now: () => now });
  opened.push(store);
  await store.set('k', 'v', 500);
  now += 499;
  expect(await store.get('k')).toBe('v');
  now += 1;
  expect(await store.get('k')).toBeUndefined();
});

it('a Redis store whose server is not there fails fast, counts the failure, and names the cause', async () => {
  const store = await openStateStore({ store: `redis://127.0.0.1:${await freePort()}` });
  opened.push(store);
  await expect(store.ping()).rejects.toThrow(/state store unreachable/);
  await expect(store.get('k')).rejects.toThrow(/state store unreachable/);
  expect(store.errors).toBe(2);
});

it('refuses a store that is neither memory nor a Redis or Valkey URL', async () => {
  await expect(openStateStore({ store: 'http://localhost:6379' })).rejects.toThrow(/redis:\/\/ or valkey:\/\//);
});
