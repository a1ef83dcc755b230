/**
 * Fair sharing between sessions, in a host with real Piscina workers: a session
 * flooding a plugin's queue is refused while another session's calls still get
 * in and complete; a timeout that passed while a call still waited for a
 * worker does not count against the tool's circuit; and one session's crashes
 * take the tool out of service for that session only, until a second session's
 * failures show the tool is broken for everyone.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { tempDir } from '../helpers.js';

const work = tempDir();
afterAll(() => work.cleanup());

/** A trusted plugin with a slow tool, a quick one with a short budget, and one that crashes its worker when asked. */
function writePlugin(): string {
  const dir = path.join(work.dir, 'plugin-fair');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'toolshed-plugin-fair',
      version: '1.0.0',
      type: 'module',
      main: 'index.js',
      toolshed: { apiVersion: 1 },
    }),
  );
  writeFileSync(
    path.join(dir, 'index.js'),
    `const obj = { type: 'object' };
export default {
  apiVersion: 1,
  tools: [
    { name: 'fair_slow', description: 'Waits ms.', parameters: obj, handler: ({ ms }) => new Promise((r) => setTimeout(() => r('waited ' + ms), ms)) },
    { name: 'fair_quick', description: 'Answers at once, within 300 ms.', parameters: obj, limits: { timeoutMs: 300 }, handler: () => 'quick' },
    { name: 'fair_flaky', description: 'Crashes its worker when asked.', parameters: obj, handler: ({ crash }) => (crash ? process.exit(3) : 'fine') },
  ],
};
`,
  );
  return dir;
}

const plugin = writePlugin();

function host(limits: Record<string, unknown>): Promise<ToolHost> {
  return createToolHost({
    cwd: work.dir,
    env: { PATH: process.env.PATH },
    config: { builtins: false, cache: { enabled: false }, limits, plugins: [{ package: plugin, trust: 'trusted' }] },
  });
}

/** The exposed state of `name` as the host evaluates it now. */
const stateOf = async (h: ToolHost, name: string) => (await h.refresh()).tools.find((t) => t.name === name);

const code = (reply: string) => (reply.startsWith('{') ? (JSON.parse(reply) as { code?: string }).code : undefined);

describe('a fair share of the queue', () => {
  it("a session flooding the queue is refused past its share; another session's calls get in and complete", async () => {
    const h = await host({ threads: 1, maxQueue: 8 });
    try {
      const flood = Array.from({ length: 40 }, () => h.dispatch('fair_slow', { ms: 40 }, { sessionId: 'flood' }));
      // Two sessions waiting share the 8 places 4 and 4: the flood's newest calls make way for the other's.
      const others = Array.from({ length: 4 }, () => h.dispatch('fair_slow', { ms: 1 }, { sessionId: 'other' }));
      expect(await Promise.all(others)).toEqual(Array(4).fill('waited 1'));
      const flooded = await Promise.all(flood);
      expect(flooded.filter((r) => code(r) === 'QUEUE_FULL').length).toBeGreaterThanOrEqual(40 - 9);
      expect(flooded.filter((r) => r === 'waited 40').length).toBeGreaterThanOrEqual(1);
    } finally {
      await h.close();
    }
  }, 60_000);

  it('calls without a session share one anonymous share: their flood does not keep a session out', async () => {
    const h = await host({ threads: 1, maxQueue: 4 });
    try {
      const flood = Array.from({ length: 20 }, () => h.dispatch('fair_slow', { ms: 30 }));
      expect(await h.dispatch('fair_slow', { ms: 1 }, { sessionId: 'named' })).toBe('waited 1');
      const flooded = await Promise.all(flood);
      expect(flooded.filter((r) => code(r) === 'QUEUE_FULL').length).toBeGreaterThanOrEqual(20 - 5);
    } finally {
      await h.close();
    }
  }, 60_000);
});

describe('the breaker and time spent waiting', () => {
  it('timeouts that passed while calls waited for the worker do not take the tool out of service', async () => {
    const h = await host({ threads: 1, breaker: { failures: 2 } });
    try {
      const blocker = h.dispatch('fair_slow', { ms: 1_500 }, { sessionId: 'blocker' });
      // The blocker holds the only worker before the others are sent.
      await expect.poll(() => h.explain().plugins.reduce((n, p) => n + (p.pool?.inFlight ?? 0), 0)).toBe(1);
      const waited = await Promise.all(
        ['s1', 's2', 's3'].map((sessionId) => h.dispatch('fair_quick', {}, { sessionId })),
      );
      for (const reply of waited) {
        expect(code(reply)).toBe('TOOL_TIMEOUT');
        expect(reply).toContain('waiting for a free worker; it never started');
      }
      expect(await blocker).toBe('waited 1500');
      expect(await h.dispatch('fair_quick', {}, { sessionId: 's4' })).toBe('quick');
      expect(await stateOf(h, 'fair_quick')).toMatchObject({ exposed: true });
    } finally {
      await h.close();
    }
  }, 60_000);
});

describe("the breaker and one session's failures", () => {
  it("one session's crashes refuse that session only; a second session's crash takes the tool out for everyone", async () => {
    const h = await host({ threads: 1, breaker: { failures: 3 } });
    try {
      for (let i = 0; i < 3; i++)
        expect(code(await h.dispatch('fair_flaky', { crash: true }, { sessionId: 'a' }))).toBe('TOOL_CRASHED');
      const refused = await h.dispatch('fair_flaky', {}, { sessionId: 'a' });
      expect(code(refused)).toBe('TOOL_NOT_EXPOSED');
      expect(refused).toContain('crashed 3 times in 60 s in this session');
      // Session b still sees the tool, and its calls run.
      expect(await stateOf(h, 'fair_flaky')).toMatchObject({ exposed: true });
      expect(await h.dispatch('fair_flaky', {}, { sessionId: 'b' })).toBe('fine');
      // A crash from a second session: the failures now come from two sessions, and the tool is out for everyone.
      expect(code(await h.dispatch('fair_flaky', { crash: true }, { sessionId: 'b' }))).toBe('TOOL_CRASHED');
      expect(code(await h.dispatch('fair_flaky', {}, { sessionId: 'c' }))).toBe('TOOL_NOT_EXPOSED');
      expect(await stateOf(h, 'fair_flaky')).toMatchObject({ exposed: false });
    } finally {
      await h.close();
    }
  }, 60_000);

  it('calls without a session each count as a session of their own, as before', async () => {
    const h = await host({ threads: 1, breaker: { failures: 2 } });
    try {
      for (let i = 0; i < 2; i++) expect(code(await h.dispatch('fair_flaky', { crash: true }))).toBe('TOOL_CRASHED');
      expect(code(await h.dispatch('fair_flaky', {}, { sessionId: 'other' }))).toBe('TOOL_NOT_EXPOSED');
    } finally {
      await h.close();
    }
  }, 60_000);
});
