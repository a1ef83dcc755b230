/**
 * Messages on a shared store's channels, signed with the fleet's key (core/state/signed-messages.ts),
 * checked without a server: a message is believed only with the MAC of this key, for this channel,
 * within a minute of its time (the project's Clock), once; anything else is dropped and counted,
 * never thrown, even a listener that fails. A shared store without a key of 32 characters or more
 * does not start.
 */
import { describe, expect, it } from 'vitest';
import {
  fleetStore,
  MAX_AGE_MS,
  signMessage,
  SignedStore,
  verifyMessage,
} from '#internal/core/state/signed-messages.js';
import { MemoryStore } from '#internal/core/state/store.js';
import type { StateStore } from '#internal/core/state/store-contract.js';
import { ManualClock } from '../helpers.js';

const KEY = 'k'.repeat(32);
const NOW = 1_700_000_000_000;

describe('signMessage and verifyMessage', () => {
  const signed = signMessage(KEY, 'rounds:reply:1', '{"kind":"ack"}', NOW, 'id-1');

  it('takes a message signed with the key for the channel', () => {
    expect(verifyMessage(KEY, 'rounds:reply:1', signed, NOW + 1_000)).toEqual({
      ok: true,
      message: '{"kind":"ack"}',
      id: 'id-1',
      time: NOW,
    });
  });

  it('drops one signed with another key, sent for another channel, or changed on the way', () => {
    expect(verifyMessage('x'.repeat(32), 'rounds:reply:1', signed, NOW)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('signature does not match'),
    });
    expect(verifyMessage(KEY, 'rounds:reply:2', signed, NOW)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('signature does not match'),
    });
    const changed = JSON.stringify({ ...JSON.parse(signed), m: '{"kind":"gone"}' });
    expect(verifyMessage(KEY, 'rounds:reply:1', changed, NOW)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('signature does not match'),
    });
    const retimed = JSON.stringify({ ...JSON.parse(signed), t: NOW + 5 });
    expect(verifyMessage(KEY, 'rounds:reply:1', retimed, NOW)).toMatchObject({ ok: false });
  });

  it('drops what is not a signed message at all', () => {
    expect(verifyMessage(KEY, 'c', 'not json{', NOW)).toEqual({ ok: false, reason: 'not JSON' });
    for (const raw of [
      'null',
      '42',
      '"text"',
      '[]',
      '{"kind":"ack"}',
      '{"v":1,"t":1,"n":"a","m":"b"}',
      '{"v":1,"t":"1","n":"a","m":"b","s":"c"}',
    ]) {
      expect(verifyMessage(KEY, 'c', raw, NOW)).toEqual({ ok: false, reason: 'not a signed message' });
    }
    expect(verifyMessage(KEY, 'c', JSON.stringify({ ...JSON.parse(signed), s: 'short' }), NOW)).toMatchObject({
      ok: false,
    });
  });

  it("drops a message sent more than a minute from the receiver's clock, either way", () => {
    expect(verifyMessage(KEY, 'rounds:reply:1', signed, NOW + MAX_AGE_MS)).toMatchObject({ ok: true });
    expect(verifyMessage(KEY, 'rounds:reply:1', signed, NOW + MAX_AGE_MS + 1)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('replayed, or a clock far off'),
    });
    expect(verifyMessage(KEY, 'rounds:reply:1', signed, NOW - MAX_AGE_MS - 1)).toMatchObject({ ok: false });
  });
});

describe('SignedStore', () => {
  /** A signed store over a memory store, what it dropped, and a listener's messages on 'chan'. */
  async function setup() {
    const clock = new ManualClock(NOW);
    const inner = new MemoryStore(clock);
    const dropped: string[] = [];
    const store = new SignedStore(inner, KEY, {
      clock,
      onDropped: (channel, reason) => dropped.push(`${channel}: ${reason}`),
    });
    const heard: string[] = [];
    const arrived = () => new Promise<void>((resolve) => queueMicrotask(resolve));
    await store.subscribe('chan', (message) => heard.push(message));
    return { clock, inner, store, dropped, heard, arrived };
  }

  it('signs what it publishes, and hears it', async () => {
    const { inner, store, heard, arrived } = await setup();
    const raw: string[] = [];
    await inner.subscribe('chan', (message) => raw.push(message));
    await store.publish('chan', 'hello');
    await arrived();
    expect(heard).toEqual(['hello']);
    expect(JSON.parse(raw[0]!)).toMatchObject({ v: 1, m: 'hello', s: expect.any(String) });
    await store.close();
  });

  it('drops and counts a message not signed with its key, and one replayed', async () => {
    const { inner, store, heard, dropped, arrived } = await setup();
    await inner.publish('chan', 'not json{');
    await inner.publish('chan', JSON.stringify({ kind: 'answer', answer: { content: [] } }));
    await inner.publish('chan', signMessage('o'.repeat(32), 'chan', 'forged', NOW));
    const once = signMessage(KEY, 'chan', 'once', NOW);
    await inner.publish('chan', once);
    await inner.publish('chan', once);
    await arrived();
    expect(heard).toEqual(['once']);
    expect(store.dropped).toBe(4);
    expect(dropped).toEqual([
      'chan: not JSON',
      'chan: not a signed message',
      'chan: its signature does not match (another key, or changed on the way)',
      'chan: a replay of a message already taken',
    ]);
    await store.close();
  });

  it('counts a listener that throws instead of throwing it', async () => {
    const { store, dropped, arrived } = await setup();
    await store.subscribe('other', () => {
      throw new SyntaxError('Unexpected token');
    });
    await store.publish('other', 'x');
    await arrived();
    expect(store.dropped).toBe(1);
    expect(dropped).toEqual(['other: its listener failed: Unexpected token']);
    await store.close();
  });
});

describe('fleetStore', () => {
  /** A memory store that says it is shared, as a Redis one does. */
  const shared = (clock: ManualClock) => {
    const memory = new MemoryStore(clock);
    return new Proxy(memory, {
      get: (target, name) => (name === 'kind' ? 'redis' : Reflect.get(target, name, target)),
    }) as StateStore;
  };

  it('keeps a memory store as it is: only this process reaches it', () => {
    const memory = new MemoryStore();
    expect(fleetStore(memory, {}, new ManualClock(), () => {})).toBe(memory);
    void memory.close();
  });

  it('refuses a shared store without TOOLSHED_STATE_KEY, or with one under 32 characters', async () => {
    const store = shared(new ManualClock());
    expect(() => fleetStore(store, {}, new ManualClock(), () => {})).toThrow(/TOOLSHED_STATE_KEY is not set/);
    expect(() => fleetStore(store, { TOOLSHED_STATE_KEY: 'short' }, new ManualClock(), () => {})).toThrow(
      /is 5 characters long, under the 32 required/,
    );
    await store.close();
  });

  it("signs a shared store's messages, and tells of dropped ones at once and then once a minute, with the count", async () => {
    const clock = new ManualClock(NOW);
    const inner = shared(clock);
    const warnings: string[] = [];
    const store = fleetStore(inner, { TOOLSHED_STATE_KEY: KEY }, clock, (message) => warnings.push(message));
    await store.subscribe('chan', () => {});
    const garbage = async (n: number) => {
      for (let i = 0; i < n; i++) await inner.publish('chan', 'garbage');
      await new Promise<void>((resolve) => queueMicrotask(resolve));
    };
    await garbage(3);
    clock.advance(60_000);
    await garbage(2);
    expect(store.dropped).toBe(5);
    expect(warnings).toEqual([
      "dropped 1 message on the state store's channels (the last on 'chan': not JSON); counted in toolshed_state_messages_dropped_total",
      "dropped 3 messages on the state store's channels (the last on 'chan': not JSON); counted in toolshed_state_messages_dropped_total",
    ]);
    await store.close();
  });
});
