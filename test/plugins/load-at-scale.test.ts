/**
 * Loading never depends on a queue size or on every plugin behaving: any
 * number of plugins load with the manifest cache off, and a plugin that hangs
 * at import or during manifest extraction fails with PLUGIN_LOAD_TIMEOUT while
 * the rest of the host starts. Real workers and real child processes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, scratchDir, tempDir, withHost } from '../helpers.js';

const env = { PATH: process.env.PATH };
const work = tempDir();
afterAll(() => work.cleanup());

/** Writes `count` small plugin packages, plugin i with one tool `scale_<i>`; returns their folders. */
function writePlugins(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const dir = path.join(work.dir, `scale-${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({
        name: `toolshed-plugin-scale-${i}`,
        version: '1.0.0',
        type: 'module',
        main: 'index.js',
        toolshed: { apiVersion: 1 },
      }),
    );
    writeFileSync(
      path.join(dir, 'index.js'),
      `export default { apiVersion: 1, tools: [{ name: 'scale_${i}', description: 'Returns ${i}.', parameters: { type: 'object' }, handler: async () => '${i}' }] };\n`,
    );
    return dir;
  });
}

describe('loading at scale', () => {
  it('loads 150 plugins with the manifest cache off, more than any queue limit', async () => {
    const dirs = writePlugins(150);
    const config = {
      builtins: false,
      cache: { enabled: false },
      limits: { maxQueue: 4, threads: 2 },
      plugins: dirs.map((dir) => ({ package: dir, trust: 'trusted' as const })),
    };
    await withHost({ cwd: work.dir, env, config }, async (host) => {
      const report = host.explain();
      const failed = report.plugins.filter((p) => p.status !== 'loaded');
      expect(failed.map((p) => `${p.name}: ${p.error?.code} ${p.error?.message}`)).toEqual([]);
      expect(report.plugins.filter((p) => p.status === 'loaded' && p.manifestSource === 'extracted')).toHaveLength(150);
      expect((await host.definitions({ format: 'mcp' })).length).toBe(150);
      expect(await host.dispatch('scale_149', {})).toBe('149');
    });
  }, 120_000);
});

describe('a plugin that hangs while loading', () => {
  const plugins = (trust: 'trusted' | 'untrusted') => [
    { package: fixture('plugins', 'hangs-at-import'), trust },
    { package: fixture('plugins', 'hangs-in-manifest'), trust },
    { package: fixture('plugins', 'probe'), trust },
  ];

  // Two hosts, each waiting out its own load deadline: the two tests run side by side.
  for (const trust of ['trusted', 'untrusted'] as const) {
    it.concurrent(`fails with PLUGIN_LOAD_TIMEOUT and the rest of the host starts (${trust})`, async ({ expect }) => {
      const config = {
        builtins: false,
        cache: { enabled: false },
        limits: { loadTimeoutMs: 1_500 },
        plugins: plugins(trust),
      };
      await withHost({ cwd: scratchDir(), env, config }, async (host) => {
        const [atImport, inManifest, probe] = host.explain().plugins;
        for (const hung of [atImport, inManifest]) {
          expect(hung).toMatchObject({ status: 'failed', error: { code: 'PLUGIN_LOAD_TIMEOUT' } });
          expect(hung!.error!.message).toContain('limits.loadTimeoutMs (1500 ms)');
        }
        expect(probe!.status).toBe('loaded');
        const tools = (await host.definitions({ format: 'mcp' })).map((t) => t.name);
        expect(tools).not.toContain('never_loaded');
        expect(tools.length).toBeGreaterThan(0);
      });
    }, 60_000);
  }
});
