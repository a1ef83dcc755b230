/**
 * Trusted plugins in the shared pool of real worker threads (these hold env
 * grants, so their entries opt in with `pool: 'shared'`): each task sees only
 * its own plugin's env grant and module, even in the same worker and even
 * from a timer left behind; `pool: 'own'` opts out. (What a shared worker does
 * not keep apart is in test/security/shared-pool.test.ts.) Calls beyond the
 * workers wait in the host's admission queue, fair across plugins and
 * sessions, each with its own deadline; QUEUE_FULL only past the bounds, with
 * retryAfterMs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { tempDir, withHost } from '../helpers.js';

const work = tempDir();
/** One host with A and B in one shared thread, for every test that needs no other limits (started by the first). */
let oneThread: Promise<ToolHost> | undefined;
afterAll(async () => {
  if (oneThread) await (await oneThread).close();
  work.cleanup();
});

/** A trusted plugin `prefix` asking for env var SECRET_<PREFIX>, with tools that report what they see. */
function writePlugin(prefix: string): string {
  const dir = path.join(work.dir, `plugin-${prefix}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: `toolshed-plugin-${prefix}`,
      version: '1.0.0',
      type: 'module',
      main: 'index.js',
      toolshed: { apiVersion: 1 },
    }),
  );
  writeFileSync(
    path.join(dir, 'index.js'),
    `import { threadId } from 'node:worker_threads';
const seen = new Set();
const obj = { type: 'object' };
const moduleId = Math.random();
export default {
  apiVersion: 1,
  permissions: { env: ['SECRET_${prefix.toUpperCase()}'] },
  tools: [
    { name: '${prefix}_env', description: 'What do I see?', parameters: obj, handler: (_args, ctx) => ({ ctx: ctx.env, process: { ...process.env }, keys: Object.keys(process.env), direct: process.env.SECRET_A ?? null, other: process.env.SECRET_B ?? null, threadId, moduleId }) },
    { name: '${prefix}_write', description: 'Writes process.env.', parameters: obj, handler: () => { process.env.WRITTEN_${prefix.toUpperCase()} = 'yes'; return Object.keys(process.env); } },
    { name: '${prefix}_linger', description: 'Leaves a timer reading process.env.', parameters: obj, handler: () => { setInterval(() => seen.add(JSON.stringify(Object.keys(process.env))), 2).unref(); return 'lingering'; } },
    { name: '${prefix}_frozen', description: 'Writes process.env, reports ctx.', parameters: obj, handler: (_args, ctx) => { process.env.WRITTEN_${prefix.toUpperCase()} = 'yes'; return { env: Object.isFrozen(ctx.env), ctxKeys: Object.keys(ctx.env), roots: [ctx.roots, ctx.roots.read, ctx.roots.write].every(Object.isFrozen), options: Object.isFrozen(ctx.options) }; } },
    { name: '${prefix}_seen', description: 'What the timer saw.', parameters: obj, handler: () => [...seen] },
    { name: '${prefix}_slow', description: 'Waits ms.', parameters: obj, handler: async ({ ms }) => { await new Promise((r) => setTimeout(r, ms)); return '${prefix} ' + ms; } },
    { name: '${prefix}_quick', description: 'Gives up after 300 ms.', parameters: obj, limits: { timeoutMs: 300 }, handler: () => 'quick' },
  ],
};
`,
  );
  return dir;
}

const A = writePlugin('a');
const B = writePlugin('b');
const env = { SECRET_A: 'alpha', SECRET_B: 'bravo', PATH: process.env.PATH };

/**
 * A and B opted into the shared pool; `poolB` sets B's entry otherwise ('default': no `pool` key, so its own pool as it
 * holds a grant).
 */
function host(limits: Record<string, unknown>, poolB: 'shared' | 'own' | 'default' = 'shared'): Promise<ToolHost> {
  return createToolHost({
    cwd: work.dir,
    env,
    config: {
      builtins: false,
      limits,
      plugins: [
        { package: A, trust: 'trusted', pool: 'shared' },
        { package: B, trust: 'trusted', ...(poolB !== 'default' ? { pool: poolB } : {}) },
      ],
    },
  });
}

const json = (text: string) => JSON.parse(text);

/** The file's host with `{ threads: 1 }`: A and B share its one worker. Closed in afterAll. */
const sharedThread = (): Promise<ToolHost> => (oneThread ??= host({ threads: 1 }));

describe('the shared pool: per-task env and module', () => {
  it("plugin A's task cannot see plugin B's env in the same worker, nor B's in A's", async () => {
    const h = await sharedThread();
    const a = json(await h.dispatch('a_env', {}));
    const b = json(await h.dispatch('b_env', {}));
    expect(a.threadId).toBe(b.threadId); // one worker ran both
    expect(a.moduleId).not.toBe(b.moduleId); // each its own module
    expect(a).toMatchObject({
      ctx: { SECRET_A: 'alpha' },
      process: { SECRET_A: 'alpha' },
      keys: ['SECRET_A'],
      direct: 'alpha',
      other: null,
    });
    expect(b).toMatchObject({
      ctx: { SECRET_B: 'bravo' },
      process: { SECRET_B: 'bravo' },
      keys: ['SECRET_B'],
      direct: null,
      other: 'bravo',
    });
    // A write to process.env stays in its own task.
    expect(json(await h.dispatch('a_write', {}))).toEqual(['SECRET_A', 'WRITTEN_A']);
    expect(json(await h.dispatch('b_env', {})).keys).toEqual(['SECRET_B']);
    expect(json(await h.dispatch('a_env', {})).keys).toEqual(['SECRET_A']);
    // ctx.env, ctx.roots and ctx.options are frozen, and ctx.env is not the task's writable process.env.
    expect(json(await h.dispatch('b_frozen', {}))).toEqual({
      env: true,
      ctxKeys: ['SECRET_B'],
      roots: true,
      options: true,
    });
    expect(json(await h.dispatch('b_env', {})).keys).toEqual(['SECRET_B']);
  });

  it("a timer plugin A left behind never reads plugin B's env while B runs in that worker", async () => {
    const h = await sharedThread();
    expect(await h.dispatch('a_linger', {})).toBe('lingering');
    for (let i = 0; i < 5; i++) {
      expect(json(await h.dispatch('b_env', {})).keys).toEqual(['SECRET_B']);
      expect(await h.dispatch('b_slow', { ms: 20 })).toBe('b 20');
    }
    const seen = json(await h.dispatch('a_seen', {})) as string[];
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toEqual([JSON.stringify(['SECRET_A'])]);
  });

  it.each([
    ['own', "pool: 'own' in its config entry"],
    ['default', 'it holds env grants (SECRET_B)'],
  ] as const)('pool: %s runs a plugin holding env grants in a pool of its own', async (poolB, reason) => {
    const h = await host({ threads: 1 }, poolB);
    try {
      const a = json(await h.dispatch('a_env', {}));
      const b = json(await h.dispatch('b_env', {}));
      expect(a.threadId).not.toBe(b.threadId);
      expect(b.keys).toEqual(['SECRET_B']);
      expect(h.explain().plugins.map((p) => [p.name, p.pool?.kind, p.pool?.reason])).toEqual([
        ['toolshed-plugin-a', 'shared', "pool: 'shared' in its config entry, though it holds env grants (SECRET_A)"],
        ['toolshed-plugin-b', 'own', reason],
      ]);
    } finally {
      await h.close();
    }
  });
});

describe('admission: calls beyond the workers wait their turn', () => {
  it('serves 512 concurrent calls to one plugin with the default limits', async () => {
    await withHost(
      { cwd: work.dir, env, config: { builtins: false, plugins: [{ package: A, trust: 'trusted' }] } },
      async (h) => {
        const results = await Promise.all(Array.from({ length: 512 }, () => h.dispatch('a_slow', { ms: 1 })));
        expect(results.filter((r) => r === 'a 1')).toHaveLength(512);
      },
    );
  }, 120_000);

  it('is fair across plugins: one call of B does not wait for a flood of A', async () => {
    const h = await sharedThread();
    const order: string[] = [];
    const flood = Array.from({ length: 30 }, () => h.dispatch('a_slow', { ms: 15 }).then((r) => order.push(r)));
    // The flood is under way (queued behind its first calls) before B asks.
    await expect.poll(() => order.length).toBeGreaterThan(0);
    // Counted from when B asks, not from the start (a late timer on a loaded machine lets more of
    // A finish first): B waits for the call of A running then and the one or two A is granted
    // before B's turn comes round, never for the rest of the flood.
    const before = order.length;
    await h.dispatch('b_slow', { ms: 1 }).then((r) => order.push(r));
    expect(order.indexOf('b 1') - before).toBeLessThanOrEqual(3);
    await Promise.all(flood);
    expect(order).toHaveLength(31);
  }, 60_000);

  it('is fair across sessions of one plugin', async () => {
    const h = await sharedThread();
    const order: string[] = [];
    const flood = Array.from({ length: 30 }, () =>
      h.dispatch('a_slow', { ms: 15 }, { sessionId: 'busy' }).then(() => order.push('busy')),
    );
    await expect.poll(() => order.length).toBeGreaterThan(0);
    const before = order.length;
    await h.dispatch('a_slow', { ms: 1 }, { sessionId: 'other' }).then(() => order.push('other'));
    expect(order.indexOf('other') - before).toBeLessThanOrEqual(3);
    await Promise.all(flood);
  }, 60_000);

  it('refuses past maxQueue with QUEUE_FULL and a retryAfterMs hint; the rest complete', async () => {
    const h = await host({ threads: 1, maxQueue: 1 });
    try {
      const results = await Promise.all([
        h.dispatch('a_slow', { ms: 200 }),
        h.dispatch('a_slow', { ms: 200 }),
        h.dispatch('a_slow', { ms: 200 }),
      ]);
      expect(results.filter((r) => r === 'a 200')).toHaveLength(2);
      const full = json(results.find((r) => r !== 'a 200')!);
      expect(full.code).toBe('QUEUE_FULL');
      expect(full.retryAfterMs).toBeGreaterThan(0);
    } finally {
      await h.close();
    }
  });

  it('refuses past the host-wide maxQueueTotal across plugins', async () => {
    const h = await host({ threads: 1, maxQueueTotal: 1 });
    try {
      const results = await Promise.all([
        h.dispatch('a_slow', { ms: 200 }),
        h.dispatch('a_slow', { ms: 200 }),
        h.dispatch('b_slow', { ms: 200 }),
      ]);
      expect(results.slice(0, 2)).toEqual(['a 200', 'a 200']);
      expect(json(results[2]!).code).toBe('QUEUE_FULL');
    } finally {
      await h.close();
    }
  });

  it('a waiting call keeps its own deadline: it times out in the queue, the running call finishes', async () => {
    const h = await sharedThread();
    const long = h.dispatch('a_slow', { ms: 1500 });
    // The long call holds the only thread before the quick one is sent.
    await expect.poll(() => Math.max(...h.explain().plugins.map((p) => p.pool?.inFlight ?? 0))).toBe(1);
    expect(json(await h.dispatch('b_quick', {})).code).toBe('TOOL_TIMEOUT');
    expect(await long).toBe('a 1500');
  });
});
