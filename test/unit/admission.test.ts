/**
 * Fair admission in front of a pool's threads (core/runners/thread/admission.ts) on the stage:
 * who gets a free slot next (round robin across plugins, and across sessions within a plugin),
 * the per-plugin and pool-wide bounds and each session's share of them, and a caller's cancel.
 * No worker: a slot is granted and released by the test. Every call here may wait far longer than
 * the test runs (no deadline fires); waiting past a deadline is the thread tier's, with real
 * workers: test/thread-tier/ and test/fleet/fairness*.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Admission, type Admitted } from '#internal/core/runners/thread/admission.js';

const LONG = 3_600_000;
const opened: Admission[] = [];
afterEach(() => {
  for (const admission of opened.splice(0)) admission.close({ kind: 'closed' });
});

function admissionOf(slots: number, maxQueue = 100, maxQueueTotal = 1000): Admission {
  const admission = new Admission({ slots, maxQueue, maxQueueTotal });
  opened.push(admission);
  return admission;
}

/** A call of `key` in `session`; `order` records its label when it is granted a slot. */
function ask(admission: Admission, key: string, session: string, label: string, order: string[], signal?: AbortSignal) {
  return Promise.resolve(admission.acquire({ key, session, waitMs: LONG, signal })).then((admitted: Admitted) => {
    if (admitted.ok) order.push(label);
    return admitted;
  });
}

describe('who gets a free slot next', () => {
  it('runs a call at once while a slot is free, and hands a released slot to the next waiting call', async () => {
    const admission = admissionOf(2);
    const order: string[] = [];
    const one = await ask(admission, 'a', '', 'one', order);
    const two = await ask(admission, 'a', '', 'two', order);
    const three = ask(admission, 'a', '', 'three', order);
    expect(order).toEqual(['one', 'two']);
    expect(admission.load).toEqual({ running: 2, waiting: 1 });
    if (one.ok) one.release();
    expect((await three).ok).toBe(true);
    expect(admission.load).toEqual({ running: 2, waiting: 0 });
    // A slot released twice is released once.
    if (one.ok) one.release();
    expect(admission.load.running).toBe(2);
    if (two.ok) two.release();
  });

  it('takes waiting calls round robin across plugins, and across sessions within a plugin', async () => {
    const admission = admissionOf(1);
    const order: string[] = [];
    const calls = new Map<string, Promise<Admitted>>([['first', ask(admission, 'busy-plugin', 's1', 'first', order)]]);
    for (const [key, session, label] of [
      ['busy-plugin', 's1', 'busy s1 #1'],
      ['busy-plugin', 's1', 'busy s1 #2'],
      ['busy-plugin', 's2', 'busy s2 #1'],
      ['quiet-plugin', 's1', 'quiet s1 #1'],
    ] as const) {
      calls.set(label, ask(admission, key, session, label, order));
    }
    expect(admission.waitingFor('busy-plugin')).toBe(3);
    // Each call runs alone and ends; the slot goes to whichever waiting call is granted next.
    let holder = await calls.get('first')!;
    calls.delete('first');
    while (calls.size) {
      if (holder.ok) holder.release();
      const [label, admitted] = await Promise.race(
        [...calls].map(([label, call]) => call.then((admitted) => [label, admitted] as const)),
      );
      calls.delete(label);
      holder = admitted;
    }
    if (holder.ok) holder.release();
    expect(order).toEqual(['first', 'busy s1 #1', 'quiet s1 #1', 'busy s2 #1', 'busy s1 #2']);
  });
});

describe("the bounds, and each session's share of them", () => {
  it("refuses a plugin's call past maxQueue from its busiest session outright, with a retry hint", async () => {
    const admission = admissionOf(1, 2);
    const order: string[] = [];
    await ask(admission, 'p', 'flood', 'running', order);
    void ask(admission, 'p', 'flood', 'w1', order);
    void ask(admission, 'p', 'flood', 'w2', order);
    const refused = await ask(admission, 'p', 'flood', 'w3', order);
    expect(refused).toEqual({ ok: false, failure: { kind: 'queue-full', limit: 2, retryAfterMs: expect.any(Number) } });
    expect(admission.waitingFor('p')).toBe(2);
    // Another plugin has its own bound.
    void ask(admission, 'q', 'flood', 'other plugin', order);
    expect(admission.waitingFor('q')).toBe(1);
  });

  it("lets a quieter session in by refusing the busiest session's newest waiting call; equal shares do not trade places", async () => {
    const admission = admissionOf(1, 3);
    const order: string[] = [];
    await ask(admission, 'p', 'flood', 'running', order);
    const floods = [
      ask(admission, 'p', 'flood', 'f1', order),
      ask(admission, 'p', 'flood', 'f2', order),
      ask(admission, 'p', 'flood', 'f3', order),
    ];
    void ask(admission, 'p', 'quiet', 'q1', order);
    // f3, the flood's newest, made room for q1.
    expect(await floods[2]).toMatchObject({ ok: false, failure: { kind: 'queue-full', limit: 3 } });
    expect(admission.waitingFor('p')).toBe(3);
    // Now flood holds 2 and quiet 1: quiet's next call would leave them equal, so it is refused itself.
    expect(await ask(admission, 'p', 'quiet', 'q2', order)).toMatchObject({
      ok: false,
      failure: { kind: 'queue-full', limit: 3 },
    });
  });

  it('bounds the calls waiting across plugins (maxQueueTotal), sharing it between sessions the same way', async () => {
    const admission = admissionOf(1, 10, 2);
    const order: string[] = [];
    await ask(admission, 'a', 'flood', 'running', order);
    void ask(admission, 'a', 'flood', 'a1', order);
    const second = ask(admission, 'b', 'flood', 'b1', order);
    expect(await ask(admission, 'c', 'flood', 'c1', order)).toMatchObject({
      ok: false,
      failure: { kind: 'queue-full', limit: 2 },
    });
    // A session with nothing waiting takes the flood's newest place, across plugins.
    void ask(admission, 'c', 'quiet', 'c2', order);
    expect(await second).toMatchObject({ ok: false, failure: { kind: 'queue-full', limit: 2 } });
    expect(admission.load.waiting).toBe(2);
  });
});

describe("a caller's cancel and the pool's close", () => {
  it('refuses a call whose signal is already aborted, and takes a waiting call out of the queue when it is', async () => {
    const admission = admissionOf(1);
    const order: string[] = [];
    const aborted = new AbortController();
    aborted.abort();
    expect(await ask(admission, 'p', '', 'late', order, aborted.signal)).toEqual({
      ok: false,
      failure: { kind: 'cancelled' },
    });
    const running = await ask(admission, 'p', '', 'running', order);
    const controller = new AbortController();
    const waiting = ask(admission, 'p', '', 'waiting', order, controller.signal);
    const after = ask(admission, 'p', '', 'after', order);
    controller.abort();
    expect(await waiting).toEqual({ ok: false, failure: { kind: 'cancelled' } });
    expect(admission.load).toEqual({ running: 1, waiting: 1 });
    if (running.ok) running.release();
    expect((await after).ok).toBe(true);
    expect(order).toEqual(['running', 'after']);
  });

  it('fails every waiting call when the pool closes', async () => {
    const admission = admissionOf(1);
    const order: string[] = [];
    await ask(admission, 'p', '', 'running', order);
    const waiting = [ask(admission, 'p', 's1', 'w1', order), ask(admission, 'q', 's2', 'w2', order)];
    admission.close({ kind: 'closed' });
    expect(await Promise.all(waiting)).toEqual([
      { ok: false, failure: { kind: 'closed' } },
      { ok: false, failure: { kind: 'closed' } },
    ]);
    expect(admission.load.waiting).toBe(0);
  });
});
