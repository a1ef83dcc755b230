import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToolHost, ToolshedError } from 'toolshed';
import { execFileSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { fixture, tempDir, withHost } from '../helpers.js';

const env = { PATH: process.env.PATH };

describe('config discovery (cosmiconfig, module name toolshed)', () => {
  // Each file name and format, the errors and the default are the stage's (test/unit/config-discovery.test.ts);
  // here a host uses what it found: the config's plugins resolve from its folder, and run.
  it('finds a TypeScript config by searching from its folder, and resolves its plugins from there', async () => {
    const cwd = fixture('project', 'formats', 'rcts');
    await withHost({ cwd, env }, async (host) => {
      expect(host.config.file).toBe(path.join(cwd, '.toolshedrc.ts'));
      expect(host.config.enable).toEqual(['from-rcts']);
      // The plugin package was resolved from the config's folder, up to the project's node_modules.
      expect(((await host.definitions({ format: 'mcp' })) as Array<{ name: string }>).map((d) => d.name)).toEqual([
        'alpha_echo',
      ]);
      expect(JSON.parse(await host.dispatch('alpha_echo', { n: 1 }))).toEqual({
        from: 'alpha',
        args: { n: 1 },
        helper: 'helped',
      });
    });
  });

  it('loads an explicitly named file (--config) with any name', async () => {
    await withHost({ cwd: fixture('project'), env, config: 'explicit/custom-name.mjs' }, async (host) => {
      expect(host.config.enable).toEqual(['from-explicit']);
      expect(host.config.dir).toBe(fixture('project', 'explicit'));
    });
  });

  it('refuses a --config that is a FIFO, a directory or a link to one, before reading it', async () => {
    const work = tempDir();
    try {
      const fifo = path.join(work.dir, 'toolshed.config.json');
      execFileSync('mkfifo', [fifo]);
      symlinkSync(fifo, path.join(work.dir, 'link.json'));
      // Reading the FIFO would block until a writer came: the refusal must come from stat alone.
      for (const [config, kind] of [
        [fifo, 'a FIFO'],
        ['link.json', 'a FIFO'],
        ['.', 'a directory'],
      ] as const) {
        const error = (await createToolHost({ cwd: work.dir, env, config }).catch((e: unknown) => e)) as ToolshedError;
        expect(error).toBeInstanceOf(ToolshedError);
        expect(error.code).toBe('CONFIG_INVALID');
        expect(error.message).toContain(`is ${kind}`);
        expect(error.message).toContain(config);
      }
    } finally {
      work.cleanup();
    }
  });

  it('uses the embedded default when no config exists', async () => {
    const work = tempDir();
    try {
      writeFileSync(path.join(work.dir, 'package.json'), '{"name":"no-config","private":true}');
      await withHost({ cwd: work.dir, env }, async (host) => {
        expect(host.config.file).toBeUndefined();
        expect(host.config.builtins).toBe(true);
        expect(host.config.enable).toEqual(['all']);
        expect(host.explain().plugins.map((p) => p.name)).toContain('@toolshed/file');
      });
    } finally {
      work.cleanup();
    }
  });
});
