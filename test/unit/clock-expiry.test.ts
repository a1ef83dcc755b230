/**
 * What waits or expires, on a ManualClock: a breaker's cool-down and half-open probe, held calls
 * and tasks of an MCP session, the approval timeout, the restart backoff and the OAuth token's
 * refresh point. Pure stages: no worker, child process or socket, and no real time passes.
 */
import { describe, expect, it, vi } from 'vitest';
import { CircuitBreaker, breakerKeys } from '#internal/core/call/breaker.js';
import { HeldCall, InputRounds } from '#internal/core/mcp-server/protocol/input-rounds.js';
import { TaskScope } from '#internal/core/mcp-server/protocol/tasks-store.js';
import { awaitApproval } from '#internal/core/call/approval.js';
import { restartDelay } from '#internal/core/mcp-client/restart-backoff.js';
import { probeDelay } from '#internal/core/mcp-client/probe.js';
import { keptTokens } from '#internal/core/mcp-client/oauth-state.js';
import { expired } from '#internal/core/mcp-client/oauth-client.js';
import { ManualClock } from '../helpers.js';

describe('breaker', () => {
  const limits = { failures: 2, windowMs: 60_000, coolDownMs: 30_000 };
  const keys = breakerKeys('t', 'p');

  it('opens, refuses through the cool-down, lets one probe through after it, and closes on its success', () => {
    const clock = new ManualClock();
    const onChange = vi.fn();
    const breaker = new CircuitBreaker(limits, clock, onChange);
    breaker.settleUnticketed(keys, 't', 'crashed');
    breaker.settleUnticketed(keys, 't', 'timed out');
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(breaker.admit(keys, 't')).toMatchObject({ refused: expect.stringContaining('retrying after 30 s') });
    clock.advance(limits.coolDownMs - 1);
    expect(breaker.admit(keys, 't')).toHaveProperty('refused');
    clock.advance(1);
    const probe = breaker.admit(keys, 't');
    if ('refused' in probe) throw new Error(probe.refused);
    // Half-open: the probe is the only call let through.
    expect(breaker.admit(keys, 't')).toMatchObject({ refused: expect.stringContaining('a probe call is running') });
    probe.settle('ok');
    expect(breaker.openOf(keys)).toBeUndefined();
    expect(breaker.admit(keys, 't')).not.toHaveProperty('refused');
  });

  it('opens again for a whole cool-down when the half-open probe fails', () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker(limits, clock);
    for (let i = 0; i < 2; i++) breaker.settleUnticketed(keys, 't', 'crashed');
    clock.advance(limits.coolDownMs);
    const probe = breaker.admit(keys, 't');
    if ('refused' in probe) throw new Error(probe.refused);
    probe.settle('crashed');
    expect(breaker.admit(keys, 't')).toHaveProperty('refused');
    clock.advance(limits.coolDownMs - 1);
    expect(breaker.admit(keys, 't')).toHaveProperty('refused');
    clock.advance(1);
    expect(breaker.admit(keys, 't')).not.toHaveProperty('refused');
  });
});

describe('held calls of an MCP session', () => {
  const owner = { sessionId: 's', tool: 't', caller: '' };

  it('cancels a call no round resumed for idleMs, on the sweep after that, and stops sweeping when none are held', () => {
    const clock = new ManualClock(0);
    const rounds = new InputRounds(10_000, clock);
    const idle = new HeldCall(owner, clock);
    rounds.hold(idle);
    clock.advance(5_000);
    const fresh = new HeldCall(owner, clock);
    rounds.hold(fresh);
    clock.advance(4_999);
    expect(idle.signal.aborted).toBe(false);
    expect(rounds.size).toBe(2);
    // The sweep every 10 s of the clock: the first call has been idle 10 s, the second 5 s.
    clock.advance(1);
    expect(idle.signal.aborted).toBe(true);
    expect(fresh.signal.aborted).toBe(false);
    expect(rounds.size).toBe(1);
    clock.advance(10_000);
    expect(fresh.signal.aborted).toBe(true);
    expect(rounds.size).toBe(0);
    expect(clock.pending).toBe(0);
  });
});

describe('tasks of an MCP session', () => {
  it('keeps a finished task until its ttl, then forgets it; a running one is cancelled at its ttl', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const scope = new TaskScope({ clock, maxTtlMs: 60_000 });
    const statuses: string[] = [];
    const done = scope.start(
      1_000,
      async () => ({ content: [] }),
      () => {},
    );
    let signal: AbortSignal | undefined;
    const running = scope.start(
      2_000,
      (work) => {
        signal = work.signal;
        return new Promise(() => {});
      },
      (task) => statuses.push(task.status),
    );
    expect(done.createdAt).toBe('2026-01-01T00:00:00.000Z');
    await vi.waitFor(() => expect(scope.get(done.taskId).status).toBe('completed'));
    clock.advance(999);
    expect(scope.get(done.taskId).status).toBe('completed');
    clock.advance(1);
    expect(() => scope.get(done.taskId)).toThrow(/No task/);
    expect(signal?.aborted).toBe(false);
    clock.advance(1_000);
    expect(signal?.aborted).toBe(true);
    expect(statuses).toContain('cancelled');
    expect(() => scope.get(running.taskId)).toThrow(/No task/);
    expect(scope.size).toBe(0);
  });
});

describe('approval timeout', () => {
  const call = { tool: 'rm', args: {}, chain: [], plugin: 'p', tier: 'thread' } as never;

  it('refuses with APPROVAL_TIMEOUT when the clock passes timeoutMs, and tells the approver to stop asking', async () => {
    const clock = new ManualClock(0);
    let asked: AbortSignal | undefined;
    const approver = vi.fn((request: { signal: AbortSignal }) => {
      asked = request.signal;
      return new Promise<never>(() => {});
    });
    const outcome = awaitApproval(call, 'listed', [approver as never], 5_000, undefined, clock);
    await vi.waitFor(() => expect(approver).toHaveBeenCalled());
    clock.advance(4_999);
    expect(asked?.aborted).toBe(false);
    clock.advance(1);
    expect(await outcome).toMatchObject({ ok: false, code: 'APPROVAL_TIMEOUT' });
    expect(asked?.aborted).toBe(true);
    expect(clock.pending).toBe(0);
  });

  it('an answer before the deadline wins and clears the timer', async () => {
    const clock = new ManualClock(0);
    const outcome = await awaitApproval(call, 'listed', [() => ({ approved: true })], 5_000, undefined, clock);
    expect(outcome).toBeUndefined();
    expect(clock.pending).toBe(0);
  });
});

describe('reconnect backoff and token refresh timing', () => {
  it('restarts a failing server after 0.5 s, doubling up to 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 10].map(restartDelay)).toEqual([
      500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('probes an unreachable server every interval to 1.5 × interval', () => {
    expect(probeDelay(2_000, 0)).toBe(2_000);
    expect(probeDelay(2_000, 0.5)).toBe(2_500);
    expect(probeDelay(2_000, 0.999)).toBe(2_999);
  });

  it('keeps expires_at from the clock, and refreshes the token 2 s before it', () => {
    const clock = new ManualClock(1_000_000);
    const tokens = keptTokens({ access_token: 'a', token_type: 'Bearer', expires_in: 60 }, clock.now());
    expect(tokens.expires_at).toBe(1_060_000);
    clock.advance(57_999);
    expect(expired(tokens, clock.now())).toBe(false);
    clock.advance(1);
    expect(expired(tokens, clock.now())).toBe(true);
    expect(expired(keptTokens({ access_token: 'a', token_type: 'Bearer' }, clock.now()), clock.now() + 1e12)).toBe(
      false,
    );
  });
});
