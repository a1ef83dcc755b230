/**
 * The circuit breaker on the stage (core/call/breaker.ts) and how dispatch counts a call's
 * outcome for it (breakerVerdict), on the test clock: when a tool's or a plugin's circuit opens
 * and says why, the window, the cool-down and its one probe call, what explain reports, and the
 * bookkeeping of calls let through while no circuit exists. Real workers crashing through a host:
 * test/dispatch/circuit-breaker.test.ts; the cool-down's timing: clock-expiry.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { breakerKeys, breakerVerdict, CircuitBreaker } from '#internal/core/call/breaker.js';
import { tierOutcome } from '#internal/boundary/tier-outcome.js';
import { failure } from '#internal/boundary/outcome.js';
import { ManualClock } from '../helpers.js';

/** The host's test limits: 3 failures in a minute open a circuit for 30 s. */
const LIMITS = { failures: 3, windowMs: 60_000, coolDownMs: 30_000 };
const PLUGIN = 'toolshed-plugin-crashy';
const keysOf = (tool: string) => breakerKeys(tool, PLUGIN);

/** A breaker on its own clock, counting its onChange calls. */
function breakerOf(limits = LIMITS) {
  const clock = new ManualClock();
  const onChange = vi.fn();
  return { clock, onChange, breaker: new CircuitBreaker(limits, clock, onChange) };
}

/** A call of `tool` as dispatch makes it while no circuit exists (idle) or through a ticket. */
function call(breaker: CircuitBreaker, tool: string, verdict: 'crashed' | 'timed out' | 'ok' | 'neutral') {
  if (breaker.idle) return void breaker.settleUnticketed(keysOf(tool), tool, verdict);
  const ticket = breaker.admit(keysOf(tool), tool);
  if ('refused' in ticket) throw new Error(`refused: ${ticket.refused}`);
  ticket.settle(verdict);
}

describe("a tool's circuit", () => {
  it('opens at the third crash in the window, says why, refuses calls, and tells the host once', () => {
    const { breaker, onChange } = breakerOf();
    for (let i = 0; i < 2; i++) call(breaker, 'always_crash', 'crashed');
    expect(breaker.openOf(keysOf('always_crash'))).toBeUndefined();
    expect(onChange).not.toHaveBeenCalled();
    call(breaker, 'always_crash', 'crashed');
    expect(breaker.openOf(keysOf('always_crash'))?.reason).toBe('crashed 3 times in 60 s; retrying after 30 s');
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(breaker.admit(keysOf('always_crash'), 'always_crash')).toEqual({
      refused: 'crashed 3 times in 60 s; retrying after 30 s',
    });
    // One broken tool does not take its siblings down: the plugin's circuit needs more than one of its tools.
    expect(breaker.openOf(keysOf('healthy'))).toBeUndefined();
    expect(breaker.admit(keysOf('healthy'), 'healthy')).not.toHaveProperty('refused');
  });

  it('counts timeouts too, and names both when both happened', () => {
    const { breaker } = breakerOf();
    for (let i = 0; i < 3; i++) call(breaker, 'hang', 'timed out');
    expect(breaker.openOf(keysOf('hang'))?.reason).toBe('timed out 3 times in 60 s; retrying after 30 s');
    const mixed = breakerOf().breaker;
    call(mixed, 'flaky', 'crashed');
    call(mixed, 'flaky', 'timed out');
    call(mixed, 'flaky', 'crashed');
    expect(mixed.openOf(keysOf('flaky'))?.reason).toBe('crashed or timed out 3 times in 60 s; retrying after 30 s');
  });

  it('does not count failures that left the window, nor successes and neutral ends', () => {
    const { breaker, clock } = breakerOf();
    for (let i = 0; i < 4; i++) call(breaker, 'fails', 'ok');
    for (let i = 0; i < 2; i++) call(breaker, 'always_crash', 'crashed');
    clock.advance(61_000);
    call(breaker, 'always_crash', 'crashed');
    call(breaker, 'always_crash', 'neutral');
    expect(breaker.openOf(keysOf('always_crash'))).toBeUndefined();
    expect(breaker.openOf(keysOf('fails'))).toBeUndefined();
    // Two more within the window open it (three inside, the first two long gone).
    call(breaker, 'always_crash', 'crashed');
    call(breaker, 'always_crash', 'crashed');
    expect(breaker.openOf(keysOf('always_crash'))?.reason).toBe('crashed 3 times in 60 s; retrying after 30 s');
  });

  it('after the cool-down lets one probe through: a crash opens it again for a cool-down, a success closes it', () => {
    const { breaker, clock, onChange } = breakerOf();
    for (let i = 0; i < 3; i++) call(breaker, 'crash_while_flag', 'crashed');
    clock.advance(30_000);
    // Shown again (nothing open) for its probe call.
    expect(breaker.openOf(keysOf('crash_while_flag'))).toBeUndefined();
    const probe = breaker.admit(keysOf('crash_while_flag'), 'crash_while_flag');
    if ('refused' in probe) throw new Error(probe.refused);
    // While the probe runs, other calls wait their turn outside.
    expect(breaker.admit(keysOf('crash_while_flag'), 'crash_while_flag')).toEqual({
      refused: 'crashed 3 times in 60 s; a probe call is running, retry when it is done',
    });
    probe.settle('crashed');
    expect(breaker.openOf(keysOf('crash_while_flag'))?.reason).toBe(
      'crashed again on the probe call after the cool-down; retrying after 30 s',
    );
    expect(onChange).toHaveBeenCalledTimes(2);
    clock.advance(30_000);
    const fixed = breaker.admit(keysOf('crash_while_flag'), 'crash_while_flag');
    if ('refused' in fixed) throw new Error(fixed.refused);
    fixed.settle('ok');
    expect(onChange).toHaveBeenCalledTimes(3);
    expect(breaker.openOf(keysOf('crash_while_flag'))).toBeUndefined();
    expect(breaker.admit(keysOf('crash_while_flag'), 'crash_while_flag')).not.toHaveProperty('refused');
  });
});

describe("a plugin's circuit", () => {
  it('opens when several of its tools crash, and then refuses every tool of the plugin', () => {
    const { breaker } = breakerOf();
    call(breaker, 'always_crash', 'crashed');
    call(breaker, 'other_crash', 'crashed');
    call(breaker, 'always_crash', 'crashed');
    const reason = 'the tools of plugin toolshed-plugin-crashy crashed 3 times in 60 s; retrying after 30 s';
    expect(breaker.openOf(keysOf('healthy'))?.reason).toBe(reason);
    expect(breaker.admit(keysOf('healthy'), 'healthy')).toEqual({ refused: reason });
    // Another plugin's tool of the same name is not in it.
    expect(breaker.openOf(breakerKeys('healthy', 'other-plugin'))).toBeUndefined();
  });
});

describe('the circuits in explain', () => {
  it('reports each circuit counting, open with until, then half-open and probing; sorted by key', () => {
    const { breaker, clock } = breakerOf();
    call(breaker, 'always_crash', 'crashed');
    expect(breaker.report()).toEqual([
      { key: 'plugin:toolshed-plugin-crashy', state: 'counting', failures: 1 },
      { key: 'tool:always_crash', state: 'counting', failures: 1 },
    ]);
    for (let i = 0; i < 2; i++) call(breaker, 'always_crash', 'crashed');
    expect(breaker.report().find((c) => c.key === 'tool:always_crash')).toEqual({
      key: 'tool:always_crash',
      state: 'open',
      failures: 0,
      reason: 'crashed 3 times in 60 s; retrying after 30 s',
      until: new Date(clock.now() + 30_000).toISOString(),
    });
    clock.advance(30_001);
    expect(breaker.report().find((c) => c.key === 'tool:always_crash')).toMatchObject({
      state: 'half-open',
      reason: 'crashed 3 times in 60 s; retrying after 30 s',
    });
    const probe = breaker.admit(keysOf('always_crash'), 'always_crash');
    expect(breaker.report().find((c) => c.key === 'tool:always_crash')).toMatchObject({ state: 'probing' });
    if (!('refused' in probe)) probe.settle('ok');
    // Closed; the plugin's failures have left the window too.
    clock.advance(60_000);
    expect(breaker.report()).toEqual([]);
  });
});

describe("a session's circuits", () => {
  it("open on one session's own failures and refuse only that session; the shared circuit needs more than one session", () => {
    const { breaker, onChange } = breakerOf();
    const mine = breakerKeys('always_crash', PLUGIN, 'session-a');
    for (let i = 0; i < 3; i++) {
      const ticket = breaker.admit(mine, 'always_crash', 'session-a');
      if ('refused' in ticket) throw new Error(ticket.refused);
      ticket.settle('crashed');
    }
    expect(breaker.admit(mine, 'always_crash', 'session-a')).toEqual({
      refused: 'crashed 3 times in 60 s in this session; retrying after 30 s',
    });
    expect(
      breaker.admit(breakerKeys('always_crash', PLUGIN, 'session-b'), 'always_crash', 'session-b'),
    ).not.toHaveProperty('refused');
    expect(breaker.openOf(keysOf('always_crash'))).toBeUndefined();
    // What everyone is shown did not change.
    expect(onChange).not.toHaveBeenCalled();
  });
});

describe('how dispatch counts a call for the breaker', () => {
  const call = { tool: 'hang', plugin: PLUGIN, timeoutMs: 200, maxResultChars: 1000 };

  it('counts a crash and a timeout of the tool; not a handler error, a refusal or a success', () => {
    const crashed = {
      ok: false as const,
      failure: { kind: 'crashed' as const, message: 'exit 7', outOfMemory: false },
    };
    expect(breakerVerdict(tierOutcome(call, crashed), crashed)).toBe('crashed');
    const timedOut = { ok: false as const, failure: { kind: 'timeout' as const, timeoutMs: 200 } };
    expect(tierOutcome(call, timedOut)).toMatchObject({ code: 'TOOL_TIMEOUT' });
    expect(breakerVerdict(tierOutcome(call, timedOut), timedOut)).toBe('timed out');
    expect(breakerVerdict(failure('TOOL_FAILED', 'no'))).toBe('ok');
    expect(breakerVerdict(failure('INVALID_ARGUMENTS', 'no'))).toBe('ok');
    expect(breakerVerdict({ ok: true, text: 'fine' })).toBe('ok');
  });

  it("counts neither a timeout that passed while the call waited for a worker, nor the caller's cancel, the queue or the network", () => {
    const waited = { ok: false as const, failure: { kind: 'timeout' as const, timeoutMs: 200, waiting: true } };
    expect(breakerVerdict(tierOutcome(call, waited), waited)).toBe('neutral');
    for (const code of ['TOOL_CANCELLED', 'TOOL_UNREACHABLE', 'QUEUE_FULL', 'HOST_CLOSED'] as const)
      expect(breakerVerdict(failure(code, 'x'))).toBe('neutral');
  });
});

describe('circuit breaker bookkeeping', () => {
  const limits = { failures: 2, windowMs: 60_000, coolDownMs: 30_000 };
  const keys = breakerKeys('t', 'p');

  it('makes no circuit for a success or a neutral end, so it stays idle', () => {
    const breaker = new CircuitBreaker(limits, new ManualClock());
    for (const verdict of ['ok', 'neutral'] as const) {
      const ticket = breaker.admit(keys, 't');
      if ('refused' in ticket) throw new Error(ticket.refused);
      ticket.settle(verdict);
      breaker.settleUnticketed(keys, 't', verdict);
    }
    expect(breaker.idle).toBe(true);
  });

  it('books a crash or timeout let through while idle as a ticket would, and opens the circuit', () => {
    const breaker = new CircuitBreaker(limits, new ManualClock());
    breaker.settleUnticketed(keys, 't', 'crashed');
    expect(breaker.idle).toBe(false);
    expect(breaker.openOf(keys)).toBeUndefined();
    breaker.settleUnticketed(keys, 't', 'timed out');
    expect(breaker.openOf(keys)?.reason).toBe('crashed or timed out 2 times in 60 s; retrying after 30 s');
    expect(breaker.admit(keys, 't')).toEqual({ refused: 'crashed or timed out 2 times in 60 s; retrying after 30 s' });
  });

  it('forgets a closed circuit once its failures have left the window, and idles again', () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker(limits, clock);
    breaker.settleUnticketed(keys, 't', 'crashed');
    expect(breaker.idle).toBe(false);
    clock.advance(limits.windowMs - 1);
    expect(breaker.idle).toBe(false);
    clock.advance(limits.windowMs);
    expect(breaker.idle).toBe(true);
    // The failure is gone with it: one more crash does not open the circuit.
    breaker.settleUnticketed(keys, 't', 'crashed');
    expect(breaker.openOf(keys)).toBeUndefined();
  });

  it('keeps an open circuit however long ago it opened, so the next call is its probe', () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker(limits, clock);
    for (let i = 0; i < 2; i++) breaker.settleUnticketed(keys, 't', 'crashed');
    clock.advance(10 * limits.windowMs);
    expect(breaker.idle).toBe(false);
    const ticket = breaker.admit(keys, 't');
    if ('refused' in ticket) throw new Error(ticket.refused);
    expect(breaker.admit(keys, 't')).toMatchObject({ refused: expect.stringContaining('a probe call is running') });
    ticket.settle('ok');
    expect(breaker.idle).toBe(true);
  });

  it('books nothing when the breaker is off', () => {
    const breaker = new CircuitBreaker({ ...limits, failures: 0 }, new ManualClock());
    for (let i = 0; i < 3; i++) breaker.settleUnticketed(keys, 't', 'crashed');
    expect(breaker.idle).toBe(true);
  });
});
