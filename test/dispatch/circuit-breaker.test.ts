/**
 * Crash loops: a tool (or a plugin) that keeps killing its worker or timing out
 * is hidden with the reason after `limits.breaker.failures` in the window, its
 * calls are refused without starting a worker, a 'change' event fires, and
 * after the cool-down one probe call decides whether it comes back. Real
 * workers die in every crash here; only time is a manual clock.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixtureOptions, ManualClock, tempDir } from '../helpers.js';
import { breakerKeys, CircuitBreaker } from '#internal/core/call/breaker.js';

let work: ReturnType<typeof tempDir>;
let clock: ManualClock;
let host: ToolHost;
let changes: number;

const parse = (text: string) => JSON.parse(text) as { error: string; code: string };
const exposed = async () => ((await host.definitions({ format: 'mcp' })) as Array<{ name: string }>).map((d) => d.name);
const completed = () => host.explain().plugins.find((p) => p.name === 'toolshed-plugin-crashy')!.pool!.completed;

beforeEach(async () => {
  work = tempDir('toolshed-breaker-');
  clock = new ManualClock();
  host = await createToolHost(fixtureOptions(['crashy'], { cwd: work.dir, clock, config: { limits: { breaker: { failures: 3, windowMs: 60_000, coolDownMs: 30_000 } } } }));
  changes = 0;
  host.on('change', () => changes++);
});
afterEach(async () => {
  await host.close();
  work.cleanup();
});

describe('circuit breaker', () => {
  it('hides a tool that crashed failures times in the window, says why, and refuses it without a worker', async () => {
    for (let i = 0; i < 3; i++) expect(parse(await host.dispatch('always_crash', {})).code).toBe('TOOL_CRASHED');
    const state = (await host.refresh()).tools.find((t) => t.name === 'always_crash')!;
    expect(state).toMatchObject({ exposed: false, layer: 'availability', reason: 'crashed 3 times in 60 s; retrying after 30 s', availability: { kind: 'breaker' } });
    expect(changes).toBeGreaterThan(0);
    expect(await exposed()).not.toContain('always_crash');
    // One broken tool does not take its siblings down.
    expect(await exposed()).toContain('healthy');
    const before = completed();
    const refused = parse(await host.dispatch('always_crash', {}));
    expect(refused).toEqual({ code: 'TOOL_NOT_EXPOSED', error: "tool 'always_crash' is not available here: crashed 3 times in 60 s; retrying after 30 s" });
    expect(completed()).toBe(before);
  });

  it('shows its circuits in explain: open with until, the others counting', async () => {
    await host.dispatch('always_crash', {});
    expect(host.explain().breakers).toEqual(expect.arrayContaining([{ key: 'tool:always_crash', state: 'counting', failures: 1 }]));
    for (let i = 0; i < 2; i++) await host.dispatch('always_crash', {});
    const open = (await host.refresh()).breakers!.find((c) => c.key === 'tool:always_crash');
    expect(open).toEqual({ key: 'tool:always_crash', state: 'open', failures: 0, reason: 'crashed 3 times in 60 s; retrying after 30 s', until: new Date(clock.now() + 30_000).toISOString() });
    clock.advance(30_001);
    expect(host.explain().breakers!.find((c) => c.key === 'tool:always_crash')).toMatchObject({ state: 'half-open' });
  });

  it('does not count failures outside the window, nor handler errors', async () => {
    for (let i = 0; i < 4; i++) expect(parse(await host.dispatch('fails', {})).code).toBe('TOOL_FAILED');
    for (let i = 0; i < 2; i++) expect(parse(await host.dispatch('always_crash', {})).code).toBe('TOOL_CRASHED');
    clock.advance(61_000);
    expect(parse(await host.dispatch('always_crash', {})).code).toBe('TOOL_CRASHED');
    expect(await exposed()).toEqual(expect.arrayContaining(['always_crash', 'fails']));
  });

  it('after the cool-down shows the tool again and lets one probe through: a crash closes it again, a success restores it', async () => {
    writeFileSync(path.join(work.dir, 'crash.flag'), '');
    for (let i = 0; i < 3; i++) expect(parse(await host.dispatch('crash_while_flag', {})).code).toBe('TOOL_CRASHED');
    expect(await exposed()).not.toContain('crash_while_flag');
    clock.advance(30_000);
    const changesBefore = changes;
    expect(await exposed()).toContain('crash_while_flag');
    expect(changes).toBeGreaterThan(changesBefore);
    // The probe crashes: out of service again, at once.
    expect(parse(await host.dispatch('crash_while_flag', {})).code).toBe('TOOL_CRASHED');
    expect(await exposed()).not.toContain('crash_while_flag');
    expect((await host.refresh()).tools.find((t) => t.name === 'crash_while_flag')!.reason).toBe('crashed again on the probe call after the cool-down; retrying after 30 s');
    // Fixed: the next probe succeeds and the tool stays.
    rmSync(path.join(work.dir, 'crash.flag'));
    clock.advance(30_000);
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const probe = host.dispatch('crash_while_flag', { ms: 300 }, { onLog: () => started() });
    // While the probe runs, other calls wait their turn outside.
    await running;
    expect(parse(await host.dispatch('crash_while_flag', {}))).toMatchObject({ code: 'TOOL_NOT_EXPOSED', error: expect.stringContaining('a probe call is running') });
    expect(await probe).toBe('ok');
    expect(await host.dispatch('crash_while_flag', {})).toBe('ok');
    expect(await exposed()).toContain('crash_while_flag');
  });

  it('opens the plugin circuit when several of its tools crash: all its tools are hidden', async () => {
    expect(parse(await host.dispatch('always_crash', {})).code).toBe('TOOL_CRASHED');
    expect(parse(await host.dispatch('other_crash', {})).code).toBe('TOOL_CRASHED');
    expect(parse(await host.dispatch('always_crash', {})).code).toBe('TOOL_CRASHED');
    const report = await host.refresh();
    expect(report.tools.filter((t) => t.exposed).map((t) => t.name)).toEqual([]);
    expect(report.tools.find((t) => t.name === 'healthy')!.reason).toBe('the tools of plugin toolshed-plugin-crashy crashed 3 times in 60 s; retrying after 30 s');
    expect(parse(await host.dispatch('healthy', {})).code).toBe('TOOL_NOT_EXPOSED');
  });

  it('keeps no circuit for successes and errors, so its first crash after many of them still counts from one', async () => {
    // While no circuit exists, dispatch lets calls through without building their keys and books only a crash or timeout.
    for (let i = 0; i < 5; i++) expect(await host.dispatch('healthy', {})).not.toContain('"code"');
    expect(parse(await host.dispatch('fails', {})).code).toBe('TOOL_FAILED');
    for (let i = 0; i < 2; i++) expect(parse(await host.dispatch('always_crash', {})).code).toBe('TOOL_CRASHED');
    expect(await exposed()).toContain('always_crash');
    expect(parse(await host.dispatch('always_crash', {})).code).toBe('TOOL_CRASHED');
    expect(await exposed()).not.toContain('always_crash');
  });

  it('counts timeouts too', async () => {
    for (let i = 0; i < 3; i++) expect(parse(await host.dispatch('hang', {})).code).toBe('TOOL_TIMEOUT');
    expect((await host.refresh()).tools.find((t) => t.name === 'hang')!.reason).toBe('timed out 3 times in 60 s; retrying after 30 s');
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
