/**
 * Layer 2's cache of custom-check verdicts (core/expose/check-cache.ts) on the test clock:
 * TTL, single flight, the grace window, a throwing probe, invalidation. The checks running in
 * a plugin's worker through this cache: test/availability/checks.test.ts.
 */
import type { CheckVerdict } from '#internal/boundary/protocol.js';
import { CheckCache } from '#internal/core/expose/check-cache.js';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers.js';

/** A probe that answers `verdicts` in turn (the last one again once they run out), counting its runs. */
function probeOf(...verdicts: CheckVerdict[]) {
  let runs = 0;
  const probe = async () => verdicts[Math.min(runs++, verdicts.length - 1)]!;
  return { probe, runs: () => runs };
}

describe('the check cache', () => {
  it('reuses a verdict for ttlMs and probes again when it expires', async () => {
    const clock = new ManualClock();
    const cache = new CheckCache({ ttlMs: 1000, graceMs: 0, clock });
    const check = probeOf({ ok: true }, { ok: false, reason: 'gone' });
    expect(await cache.get('k', check.probe)).toMatchObject({ ok: true, via: 'probe', expiresAt: clock.now() + 1000 });
    clock.advance(999);
    expect(await cache.get('k', check.probe)).toMatchObject({ ok: true, via: 'cache' });
    expect(check.runs()).toBe(1);
    clock.advance(1);
    expect(await cache.get('k', check.probe)).toMatchObject({ ok: false, reason: 'gone', via: 'probe' });
    expect(check.runs()).toBe(2);
  });

  it('caches a failure for ttlMs as well', async () => {
    const clock = new ManualClock();
    const cache = new CheckCache({ ttlMs: 1000, graceMs: 0, clock });
    const check = probeOf({ ok: false, reason: 'no key' }, { ok: true });
    await cache.get('k', check.probe);
    clock.advance(500);
    expect(await cache.get('k', check.probe)).toMatchObject({ ok: false, reason: 'no key', via: 'cache' });
    expect(check.runs()).toBe(1);
  });

  it('makes one probe for concurrent callers of one key (single flight), and one per key', async () => {
    const cache = new CheckCache({ ttlMs: 1000, graceMs: 0, clock: new ManualClock() });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const probe = async (): Promise<CheckVerdict> => {
      runs++;
      await gate;
      return { ok: true };
    };
    const waiting = [...Array.from({ length: 50 }, () => cache.get('a', probe)), cache.get('b', probe)];
    release();
    const verdicts = await Promise.all(waiting);
    expect(runs).toBe(2);
    expect(new Set(verdicts.map((v) => v.ok))).toEqual(new Set([true]));
    expect(cache.probes).toEqual(
      new Map([
        ['a', 1],
        ['b', 1],
      ]),
    );
  });

  it('serves the last success for a failure within graceMs, uncached, and the failure after it', async () => {
    const clock = new ManualClock();
    const cache = new CheckCache({ ttlMs: 1000, graceMs: 10_000, clock });
    const check = probeOf({ ok: true }, { ok: false, reason: 'flaky' });
    await cache.get('k', check.probe);
    clock.advance(1500);
    expect(await cache.get('k', check.probe)).toMatchObject({ ok: true, via: 'grace', maskedReason: 'flaky' });
    // Not cached: the very next call probes again.
    expect(await cache.get('k', check.probe)).toMatchObject({ via: 'grace' });
    expect(check.runs()).toBe(3);
    clock.advance(10_000);
    expect(await cache.get('k', check.probe)).toMatchObject({ ok: false, reason: 'flaky', via: 'probe' });
  });

  it('turns a throwing probe into a failed verdict with the error', async () => {
    const cache = new CheckCache({ ttlMs: 1000, graceMs: 0, clock: new ManualClock() });
    expect(
      await cache.get('k', async () => {
        throw new Error('boom');
      }),
    ).toMatchObject({ ok: false, reason: 'check threw: boom', via: 'probe' });
  });

  it('probes afresh after invalidate()', async () => {
    const cache = new CheckCache({ ttlMs: 1000, graceMs: 0, clock: new ManualClock() });
    const check = probeOf({ ok: true }, { ok: false, reason: 'now off' });
    await cache.get('k', check.probe);
    cache.invalidate();
    expect(await cache.get('k', check.probe)).toMatchObject({ ok: false, via: 'probe' });
  });
});
