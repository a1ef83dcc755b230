import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixtureOptions, ManualClock, tempDir } from '../helpers.js';

let work: { dir: string; cleanup(): void };
let clock: ManualClock;
let host: ToolHost | undefined;

beforeEach(() => {
  work = tempDir();
  clock = new ManualClock();
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  work.cleanup();
});

const setMode = (name: 'shared' | 'own', mode: string) => writeFileSync(path.join(work.dir, `${name}.mode`), mode);
const probes = (name: string) =>
  existsSync(path.join(work.dir, 'probes.log'))
    ? readFileSync(path.join(work.dir, 'probes.log'), 'utf8')
        .split('\n')
        .filter((l) => l === name).length
    : 0;
const exposed = async (h: ToolHost) =>
  ((await h.definitions({ format: 'mcp' })) as Array<{ name: string }>).map((d) => d.name);

// The manifest cache is on, as for users (the suite's own cache folder): the first host extracts the
// probe plugin's manifest, the others start without that worker. The checks themselves run in each host's pool.
async function start(checks: Record<string, number> = {}): Promise<ToolHost> {
  host = await createToolHost(
    fixtureOptions(['probe'], {
      cwd: work.dir,
      clock,
      config: {
        checks: { ttlMs: 1000, graceMs: 0, timeoutMs: 500, ...checks },
        enable: ['probe'],
        cache: { enabled: true },
      },
    }),
  );
  return host;
}

// The cache's rules on the test clock, single flight and the grace window among them:
// test/unit/check-cache.test.ts; the grace window's warning in explain: test/unit/availability.test.ts.
describe('layer 2: custom checks in the plugin worker', () => {
  it('probes a shared check function once for all tools that use it', async () => {
    const h = await start();
    expect(await exposed(h)).toEqual(expect.arrayContaining(['shared_a', 'shared_b', 'own_check']));
    expect(probes('shared')).toBe(1);
    expect(probes('own')).toBe(1);
  });

  it('hides the tool for false and for { ok: false, reason }, keeping the reason', async () => {
    setMode('shared', 'false');
    setMode('own', 'reason');
    const h = await start();
    const tools = h.explain().tools;
    expect(tools.find((t) => t.name === 'shared_a')).toMatchObject({
      exposed: false,
      layer: 'availability',
      reason: 'check returned false',
    });
    expect(tools.find((t) => t.name === 'own_check')).toMatchObject({ exposed: false, reason: 'the service said no' });
  });

  it('treats a throwing check as unavailable with the error', async () => {
    setMode('own', 'throw');
    const h = await start();
    expect(h.explain().tools.find((t) => t.name === 'own_check')?.reason).toBe('check threw: probe exploded');
  });

  it('treats a hanging check as unavailable after checks.timeoutMs', async () => {
    setMode('own', 'hang');
    const h = await start({ timeoutMs: 300 });
    expect(h.explain().tools.find((t) => t.name === 'own_check')?.reason).toBe('check timed out after 300 ms');
    expect(await exposed(h)).toContain('shared_a');
  });

  it('treats a check stuck in a synchronous loop as unavailable, and the worker is replaced', async () => {
    // Probed first on a worker already running (a started host, probed afresh), so the host's hard
    // deadline is the check's timeout plus its grace, without the allowance for a worker still starting:
    // the loop holds a core for as long as that deadline.
    const h = await start({ timeoutMs: 300 });
    expect(await exposed(h)).toContain('own_check');
    setMode('own', 'spin');
    h.invalidateChecks();
    expect(await exposed(h)).not.toContain('own_check');
    expect(h.explain().tools.find((t) => t.name === 'own_check')?.reason).toBe('check timed out after 300 ms');
    expect(await h.dispatch('shared_a', {})).toBe('a');
  });

  it('reuses a result for ttlMs and probes again after it expires (injected clock)', async () => {
    const h = await start();
    await exposed(h);
    clock.advance(999);
    await exposed(h);
    expect(probes('shared')).toBe(1);
    setMode('shared', 'false');
    clock.advance(2);
    expect(await exposed(h)).not.toContain('shared_a');
    expect(probes('shared')).toBe(2);
  });

  it('probes afresh after invalidateChecks()', async () => {
    const h = await start();
    await exposed(h);
    setMode('own', 'false');
    expect(await exposed(h)).toContain('own_check');
    h.invalidateChecks();
    expect(await exposed(h)).not.toContain('own_check');
    expect(probes('own')).toBe(2);
  });

  it('emits change when a check flips the exposed set', async () => {
    const h = await start();
    const generations: number[] = [];
    h.on('change', (g) => generations.push(g));
    await exposed(h);
    setMode('shared', 'false');
    h.invalidateChecks();
    await exposed(h);
    expect(generations).toHaveLength(1);
  });
});
