/**
 * The per-call bookkeeping of pools and workers, kept in arrays rather than a
 * Map or Set churned per call: the call table finds, replaces and removes calls
 * by id in any order, the deadline sweeper fires exactly the deadlines that
 * are due and still watched, also when firing one ends another, and a Deadline
 * (Piscina's abort signal for a call) calls each listener still attached once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallTable } from '#internal/boundary/call-table.js';
import { Deadline, DeadlineSweeper, type Sweepable } from '#internal/boundary/deadlines.js';

describe('CallTable', () => {
  it('finds and removes calls by id in any order', () => {
    const table = new CallTable<number>();
    for (let i = 0; i < 5; i++) table.set(`c${i}`, i);
    expect(table.size).toBe(5);
    expect(table.delete('c1')).toBe(true);
    expect(table.delete('c1')).toBe(false);
    expect(table.delete('c4')).toBe(true);
    expect(table.delete('nope')).toBe(false);
    expect([table.get('c0'), table.get('c1'), table.get('c2'), table.get('c3'), table.get('c4')]).toEqual([
      0,
      undefined,
      2,
      3,
      undefined,
    ]);
    expect(table.values().sort()).toEqual([0, 2, 3]);
    for (const id of ['c0', 'c2', 'c3']) table.delete(id);
    expect(table.size).toBe(0);
    table.set('c5', 5);
    expect(table.get('c5')).toBe(5);
  });
});

/** A sweepable that records its abort and may end other calls when it fires. */
function item(fired: string[], name: string, onAbort?: () => void): Sweepable {
  return {
    at: Infinity,
    ms: 0,
    slot: -1,
    abort() {
      fired.push(name);
      onAbort?.();
    },
  };
}

// Deadlines run on performance.now() and the global timers: vitest's fake ones, moved by each test.
const tick = (ms: number) => vi.advanceTimersByTime(ms);
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('DeadlineSweeper', () => {
  it('fires the due deadlines still watched, skips those unwatched before or while it sweeps, and stops when none is left', async () => {
    const fired: string[] = [];
    const sweeper = new DeadlineSweeper(5);
    const late = item(fired, 'late');
    const gone = item(fired, 'gone');
    const ended = item(fired, 'ended');
    // Firing `first` ends `ended` (as a worker's abort settles other calls); `ended` must not fire after it.
    const first = item(fired, 'first', () => sweeper.unwatch(ended));
    for (const d of [first, gone, ended]) sweeper.watch(d, 0);
    sweeper.watch(late, 60_000);
    sweeper.unwatch(gone);
    expect(gone.slot).toBe(-1);
    tick(30);
    expect(fired.filter((name) => name !== 'first')).toEqual([]);
    expect(fired).toContain('first');
    // Watching one again only moves its deadline.
    sweeper.watch(late, 0);
    sweeper.watch(late, 0);
    tick(30);
    expect(fired.filter((name) => name === 'late').length).toBeGreaterThan(0);
    for (const d of [first, late]) sweeper.unwatch(d);
    sweeper.stop();
  });

  it('releases a Deadline: unwatched, its dispose callbacks run once', async () => {
    const sweeper = new DeadlineSweeper(5);
    const deadline = sweeper.start(0);
    let disposed = 0;
    deadline.onDispose(() => disposed++);
    tick(30);
    expect(deadline.aborted).toBe(true);
    sweeper.release(deadline);
    sweeper.release(deadline);
    expect(disposed).toBe(1);
    expect(deadline.slot).toBe(-1);
    sweeper.stop();
  });
});

describe('Deadline', () => {
  it('calls each listener still attached once, in order, at its first abort, and none added after it', () => {
    const deadline = new Deadline();
    const calls: string[] = [];
    const removed = () => calls.push('removed');
    const viaOff = () => calls.push('off');
    deadline.addEventListener('abort', () => calls.push('piscina'));
    deadline.addEventListener('abort', removed);
    deadline.once('abort', () => {
      calls.push('once');
      // Removing another listener while it aborts does not skip it (as an EventEmitter's emit).
      deadline.removeEventListener('abort', late);
    });
    const late = () => calls.push('late');
    deadline.once('abort', late);
    deadline.once('abort', viaOff);
    deadline.removeEventListener('abort', removed);
    deadline.off('abort', viaOff);
    expect(deadline.aborted).toBe(false);
    deadline.abort('why');
    deadline.abort('again');
    expect(calls).toEqual(['piscina', 'once', 'late']);
    expect([deadline.aborted, deadline.reason]).toEqual([true, 'why']);
    deadline.addEventListener('abort', () => calls.push('after'));
    deadline.abort('more');
    expect(calls).toEqual(['piscina', 'once', 'late']);
  });

  it('fires on its own timer after abortAfter, and dispose stops that timer', async () => {
    const fired = new Deadline();
    fired.abortAfter(5, 'grace over');
    const stopped = new Deadline();
    stopped.abortAfter(5, 'never');
    stopped.dispose();
    tick(40);
    expect([fired.aborted, fired.reason]).toEqual([true, 'grace over']);
    expect(stopped.aborted).toBe(false);
  });
});
