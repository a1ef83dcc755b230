import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fixture, tempDir, withHost } from '../helpers.js';

const env = { PATH: process.env.PATH };
const project = fixture('project');

function options(plugins: unknown[], extra: Record<string, unknown> = {}) {
  return { cwd: project, env, config: { builtins: false, plugins, ...extra } as never };
}

describe('plugin resolution and failure isolation', () => {
  it('resolves packages from the config folder, including scoped packages with an exports map', async () => {
    await withHost(options(['toolshed-plugin-alpha', '@acme/toolshed-plugin-scoped']), async (host) => {
      const report = host.explain();
      expect(report.plugins.map((p) => [p.name, p.status, p.version])).toEqual([
        ['toolshed-plugin-alpha', 'loaded', '1.2.3'],
        ['@acme/toolshed-plugin-scoped', 'loaded', '2.0.0'],
      ]);
      expect(await host.dispatch('scoped_hello', {})).toBe('hello');
    });
  });

  it("does not resolve packages from toolshed's own folder", async () => {
    // vitest is installed next to toolshed; a project elsewhere that lacks it must not find it.
    const work = tempDir();
    try {
      writeFileSync(path.join(work.dir, 'package.json'), '{"name":"elsewhere","private":true}');
      await withHost({ cwd: work.dir, env, config: { builtins: false, plugins: ['vitest'] } }, async (host) => {
        expect(host.explain().plugins[0]).toMatchObject({ status: 'failed', error: { code: 'PLUGIN_NOT_FOUND' } });
        expect(host.explain().plugins[0]!.error!.message).toContain(
          `is not installed where the config is (${work.dir})`,
        );
      });
    } finally {
      work.cleanup();
    }
  });

  it('reports a missing package with the npm install command, and the rest still works', async () => {
    await withHost(options(['toolshed-plugin-missing', 'toolshed-plugin-alpha']), async (host) => {
      const [missing, alpha] = host.explain().plugins;
      expect(missing).toMatchObject({
        name: 'toolshed-plugin-missing',
        status: 'failed',
        error: { code: 'PLUGIN_NOT_FOUND' },
      });
      expect(missing!.error!.message).toContain('npm install toolshed-plugin-missing');
      expect(alpha!.status).toBe('loaded');
      expect(await host.dispatch('alpha_only', {})).toBe('alpha only');
    });
  });

  it('reports a peer range mismatch naming the wanted and the actual version', async () => {
    await withHost(options(['toolshed-plugin-future']), async (host) => {
      const [plugin] = host.explain().plugins;
      expect(plugin!.error!.code).toBe('PLUGIN_API_MISMATCH');
      expect(plugin!.error!.message).toMatch(/wants toolshed \^2\.0\.0, but this is toolshed \d+\.\d+\.\d+/);
    });
  });

  it('reports an apiVersion mismatch naming both versions', async () => {
    await withHost(options(['toolshed-plugin-newapi']), async (host) => {
      const [plugin] = host.explain().plugins;
      expect(plugin!.error!.code).toBe('PLUGIN_API_MISMATCH');
      expect(plugin!.error!.message).toContain('wants plugin API 2');
      expect(plugin!.error!.message).toContain('provides plugin API 1');
    });
  });

  it('refuses a package without the toolshed field', async () => {
    await withHost(options(['toolshed-plugin-notaplugin']), async (host) => {
      expect(host.explain().plugins[0]!.error!.message).toContain('"toolshed": { "apiVersion": 1 }');
    });
  });

  it('reports a plugin that throws at import with its error', async () => {
    // The cache off: the import itself fails, in the extraction.
    await withHost(
      options(['toolshed-plugin-explodes', 'toolshed-plugin-alpha'], { cache: { enabled: false } }),
      async (host) => {
        const [plugin] = host.explain().plugins;
        expect(plugin!.error!.code).toBe('PLUGIN_IMPORT_FAILED');
        expect(plugin!.error!.message).toContain('database driver not configured');
        expect(await host.dispatch('alpha_only', {})).toBe('alpha only');
      },
    );
  });

  it('reports an invalid plugin object with JSON pointers', async () => {
    await withHost(options(['toolshed-plugin-invalid']), async (host) => {
      const [plugin] = host.explain().plugins;
      expect(plugin!.error!.code).toBe('PLUGIN_INVALID');
      expect(plugin!.error!.message).toContain('/tools/1/name: must match pattern');
      expect(plugin!.error!.message).toContain('/tools/1/handler: must be a function');
    });
  });

  it('loads a plugin given as a path relative to the config folder', async () => {
    await withHost(options(['./node_modules/toolshed-plugin-alpha']), async (host) => {
      expect(host.explain().plugins[0]!.status).toBe('loaded');
    });
  });

  it("reports each plugin's load time", async () => {
    await withHost(options(['toolshed-plugin-alpha', 'toolshed-plugin-missing']), async (host) => {
      for (const plugin of host.explain().plugins) expect(plugin.loadMs).toBeGreaterThanOrEqual(0);
    });
  });
});

describe('tool name conflicts', () => {
  it('lets the first in config order win and names both owners (TOOL_CONFLICT)', async () => {
    await withHost(options(['toolshed-plugin-alpha', 'toolshed-plugin-clash']), async (host) => {
      const report = host.explain();
      expect(report.conflicts).toEqual([
        {
          name: 'alpha_echo',
          winner: 'toolshed-plugin-alpha',
          losers: ['toolshed-plugin-clash'],
          rule: 'config order',
        },
      ]);
      expect(report.tools.find((t) => t.name === 'alpha_echo')?.conflict?.losers).toEqual(['toolshed-plugin-clash']);
      expect(JSON.parse(await host.dispatch('alpha_echo', {})).from).toBe('alpha');
    });
  });

  it('lets config prefer the other owner', async () => {
    await withHost(
      options(['toolshed-plugin-alpha', 'toolshed-plugin-clash'], { prefer: { alpha_echo: 'toolshed-plugin-clash' } }),
      async (host) => {
        expect(host.explain().conflicts[0]).toMatchObject({
          winner: 'toolshed-plugin-clash',
          losers: ['toolshed-plugin-alpha'],
          rule: 'prefer',
        });
        expect(JSON.parse(await host.dispatch('alpha_echo', {})).from).toBe('clash');
      },
    );
  });
});
