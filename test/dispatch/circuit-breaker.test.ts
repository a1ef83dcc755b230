/**
 * Crash loops: a tool (or a plugin) that keeps killing its worker or timing out
 * is hidden with the reason after `limits.breaker.failures` in the window, its
 * calls are refused without starting a worker, a 'change' event fires, and
 * after the cool-down one probe call decides whether it comes back. Real
 * workers die in every crash here; only time is a manual clock. The breaker's
 * rules (the window, timeouts, the probe, a plugin's circuit, sessions, what
 * counts as a failure) are tested on the stage: test/unit/circuit-breaker.test.ts.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixtureOptions, ManualClock, tempDir } from '../helpers.js';

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
  host = await createToolHost(
    fixtureOptions(['crashy'], {
      cwd: work.dir,
      clock,
      config: { limits: { breaker: { failures: 3, windowMs: 60_000, coolDownMs: 30_000 } } },
    }),
  );
  changes = 0;
  host.on('change', () => changes++);
});
afterEach(async () => {
  await host.close();
  work.cleanup();
});

describe('circuit breaker', () => {
  it('hides a tool that crashed failures times in the window, says why (explain shows its circuit), and refuses it without a worker', async () => {
    expect(parse(await host.dispatch('always_crash', {})).code).toBe('TOOL_CRASHED');
    expect(host.explain().breakers).toEqual(
      expect.arrayContaining([{ key: 'tool:always_crash', state: 'counting', failures: 1 }]),
    );
    for (let i = 0; i < 2; i++) expect(parse(await host.dispatch('always_crash', {})).code).toBe('TOOL_CRASHED');
    const report = await host.refresh();
    expect(report.tools.find((t) => t.name === 'always_crash')).toMatchObject({
      exposed: false,
      layer: 'availability',
      reason: 'crashed 3 times in 60 s; retrying after 30 s',
      availability: { kind: 'breaker' },
    });
    expect(report.breakers!.find((c) => c.key === 'tool:always_crash')).toEqual({
      key: 'tool:always_crash',
      state: 'open',
      failures: 0,
      reason: 'crashed 3 times in 60 s; retrying after 30 s',
      until: new Date(clock.now() + 30_000).toISOString(),
    });
    expect(changes).toBeGreaterThan(0);
    expect(await exposed()).not.toContain('always_crash');
    // One broken tool does not take its siblings down.
    expect(await exposed()).toContain('healthy');
    const before = completed();
    const refused = parse(await host.dispatch('always_crash', {}));
    expect(refused).toEqual({
      code: 'TOOL_NOT_EXPOSED',
      error: "tool 'always_crash' is not available here: crashed 3 times in 60 s; retrying after 30 s",
    });
    expect(completed()).toBe(before);
    clock.advance(30_001);
    expect(host.explain().breakers!.find((c) => c.key === 'tool:always_crash')).toMatchObject({ state: 'half-open' });
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
    expect((await host.refresh()).tools.find((t) => t.name === 'crash_while_flag')!.reason).toBe(
      'crashed again on the probe call after the cool-down; retrying after 30 s',
    );
    // Fixed: the next probe succeeds and the tool stays.
    rmSync(path.join(work.dir, 'crash.flag'));
    clock.advance(30_000);
    expect(await host.dispatch('crash_while_flag', {})).toBe('ok');
    expect(await host.dispatch('crash_while_flag', {})).toBe('ok');
    expect(await exposed()).toContain('crash_while_flag');
  });

  it('opens the plugin circuit when several of its tools crash: all its tools are hidden', async () => {
    expect(parse(await host.dispatch('always_crash', {})).code).toBe('TOOL_CRASHED');
    expect(parse(await host.dispatch('other_crash', {})).code).toBe('TOOL_CRASHED');
    expect(parse(await host.dispatch('always_crash', {})).code).toBe('TOOL_CRASHED');
    const report = await host.refresh();
    expect(report.tools.filter((t) => t.exposed).map((t) => t.name)).toEqual([]);
    expect(report.tools.find((t) => t.name === 'healthy')!.reason).toBe(
      'the tools of plugin toolshed-plugin-crashy crashed 3 times in 60 s; retrying after 30 s',
    );
    expect(parse(await host.dispatch('healthy', {})).code).toBe('TOOL_NOT_EXPOSED');
  });

  it('keeps no circuit for successes and errors, so its first crash after many of them still counts from one', async () => {
    // While no circuit exists, dispatch lets calls through without building their keys and books only a crash or
    // timeout.
    for (let i = 0; i < 5; i++) expect(await host.dispatch('healthy', {})).not.toContain('"code"');
    expect(parse(await host.dispatch('fails', {})).code).toBe('TOOL_FAILED');
    for (let i = 0; i < 2; i++) expect(parse(await host.dispatch('always_crash', {})).code).toBe('TOOL_CRASHED');
    expect(await exposed()).toContain('always_crash');
    expect(parse(await host.dispatch('always_crash', {})).code).toBe('TOOL_CRASHED');
    expect(await exposed()).not.toContain('always_crash');
  });
});
