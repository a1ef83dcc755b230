/**
 * The one clock (core/state/clock.ts) over a ManualClock: timers fire only when the test moves
 * time, in the order they fall due; intervals are chains of them; a debounce runs once after a
 * burst; the state store's sweeper and the MCP server's refresh loop wait on it.
 */
import { describe, expect, it, vi } from 'vitest';
import { debounced, timers } from '#internal/core/state/clock.js';
import { MemoryStore } from '#internal/core/state/store.js';
import { startRefreshLoop } from '#internal/core/mcp-server/protocol/refresh-loop.js';
import { ManualClock } from '../helpers.js';

describe('ManualClock timers', () => {
  it('fires due timers in order of their due time, at that time, and none early', () => {
    const clock = new ManualClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`b@${clock.now()}`), 20);
    clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
    const dropped = clock.setTimeout(() => fired.push('dropped'), 15);
    clock.clearTimeout(dropped);
    clock.advance(9);
    expect(fired).toEqual([]);
    clock.advance(11);
    expect(fired).toEqual(['a@10', 'b@20']);
    expect(clock.now()).toBe(20);
    expect(clock.pending).toBe(0);
  });

  it('fires a timer set by a firing timer within the same advance when it falls due in it', () => {
    const clock = new ManualClock(0);
    const at: number[] = [];
    const tick = () => {
      at.push(clock.now());
      if (at.length < 5) clock.setTimeout(tick, 100);
    };
    clock.setTimeout(tick, 100);
    clock.advance(350);
    expect(at).toEqual([100, 200, 300]);
    clock.advance(1_000);
    expect(at).toEqual([100, 200, 300, 400, 500]);
  });

  it('advanceAsync lets a promise callback set the next timer before moving on', async () => {
    const clock = new ManualClock(0);
    const at: number[] = [];
    const tick = async () => {
      at.push(clock.now());
      await Promise.resolve();
      if (at.length < 3) clock.setTimeout(() => void tick(), 50);
    };
    clock.setTimeout(() => void tick(), 50);
    await clock.advanceAsync(200);
    expect(at).toEqual([50, 100, 150]);
  });
});

describe('timers(clock)', () => {
  it("runs an interval as a chain of the clock's timeouts until stopped", () => {
    const clock = new ManualClock(0);
    const fn = vi.fn();
    const stop = timers(clock).every(1_000, fn);
    clock.advance(3_500);
    expect(fn).toHaveBeenCalledTimes(3);
    stop();
    expect(clock.pending).toBe(0);
    clock.advance(10_000);
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it('cancels a pending timer, and ignores undefined', () => {
    const clock = new ManualClock(0);
    const t = timers(clock);
    const fn = vi.fn();
    const handle = t.after(10, fn);
    t.cancel(undefined);
    t.cancel(handle);
    clock.advance(100);
    expect(fn).not.toHaveBeenCalled();
    expect(t.now()).toBe(100);
  });

  it('a debounce runs once, the quiet time after the last trigger of a burst', () => {
    const clock = new ManualClock(0);
    const fn = vi.fn();
    const debounce = debounced(clock, 200, fn);
    debounce.trigger();
    clock.advance(150);
    debounce.trigger();
    clock.advance(150);
    expect(fn).not.toHaveBeenCalled();
    clock.advance(50);
    expect(fn).toHaveBeenCalledTimes(1);
    debounce.trigger();
    debounce.cancel();
    clock.advance(1_000);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});

describe('through the clock', () => {
  it('the memory store sweeps expired entries once a minute of the clock, unread ones too', async () => {
    const clock = new ManualClock(0);
    const store = new MemoryStore(clock);
    const entries = (store as unknown as { entries: Map<string, unknown> }).entries;
    await store.set('short', 'v', 1_000);
    await store.set('long', 'v', 120_000);
    clock.advance(59_999);
    expect(entries.size).toBe(2);
    clock.advance(1);
    expect([...entries.keys()]).toEqual(['long']);
    await store.close();
    expect(clock.pending).toBe(0);
  });

  it('the refresh loop asks the host once per check TTL, never twice at once, and stops', async () => {
    const clock = new ManualClock(0);
    let finish: (() => void) | undefined;
    const refresh = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const host = { clock, config: { checks: { ttlMs: 1_000 } }, refresh };
    const stop = startRefreshLoop(host as never);
    clock.advance(999);
    expect(refresh).not.toHaveBeenCalled();
    clock.advance(1);
    expect(refresh).toHaveBeenCalledTimes(1);
    // Still running: the next turn skips it.
    clock.advance(1_000);
    expect(refresh).toHaveBeenCalledTimes(1);
    finish!();
    await clock.advanceAsync(1_000);
    expect(refresh).toHaveBeenCalledTimes(2);
    stop();
    expect(clock.pending).toBe(0);
  });
});
