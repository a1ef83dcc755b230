import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToolHost, ToolshedError } from 'toolshed';
import { execFileSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { fixture, tempDir, withHost } from '../helpers.js';

const FORMATS: Array<[string, string]> = [
  ['packagejson', 'package.json'],
  ['rc', '.toolshedrc'],
  ['rcjson', '.toolshedrc.json'],
  ['rcyaml', '.toolshedrc.yaml'],
  ['rcyml', '.toolshedrc.yml'],
  ['rcjs', '.toolshedrc.js'],
  ['rcmjs', '.toolshedrc.mjs'],
  ['rccjs', '.toolshedrc.cjs'],
  ['rcts', '.toolshedrc.ts'],
  ['configjs', 'toolshed.config.js'],
  ['configmjs', 'toolshed.config.mjs'],
  ['configcjs', 'toolshed.config.cjs'],
  ['configts', 'toolshed.config.ts'],
];

const env = { PATH: process.env.PATH };

describe('config discovery (cosmiconfig, module name toolshed)', () => {
  it.each(FORMATS)('finds %s (%s) by searching from its folder', async (name, file) => {
    const cwd = fixture('project', 'formats', name);
    await withHost({ cwd, env }, async (host) => {
      expect(host.config.file).toBe(path.join(cwd, file));
      expect(host.config.enable).toEqual([`from-${name}`]);
      // The plugin package was resolved from the config's folder, up to the project's node_modules.
      expect(((await host.definitions({ format: 'mcp' })) as Array<{ name: string }>).map((d) => d.name)).toEqual(['alpha_echo']);
      expect(JSON.parse(await host.dispatch('alpha_echo', { n: 1 }))).toEqual({ from: 'alpha', args: { n: 1 }, helper: 'helped' });
    });
  });

  it('loads an explicitly named file (--config) with any name', async () => {
    await withHost({ cwd: fixture('project'), env, config: 'explicit/custom-name.mjs' }, async (host) => {
      expect(host.config.enable).toEqual(['from-explicit']);
      expect(host.config.dir).toBe(fixture('project', 'explicit'));
    });
  });

  it('reports a missing --config file as CONFIG_INVALID naming it', async () => {
    const error = await createToolHost({ cwd: fixture('project'), env, config: 'nope.json' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolshedError);
    expect((error as ToolshedError).code).toBe('CONFIG_INVALID');
    expect((error as ToolshedError).message).toContain('nope.json');
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

  it('reports a bad config with the file, each JSON pointer and what was expected', async () => {
    const error = (await createToolHost({ cwd: fixture('project', 'bad'), env }).catch((e: unknown) => e)) as ToolshedError;
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(path.join(fixture('project', 'bad'), '.toolshedrc.json'));
    expect(error.message).toContain('/plugins: must be array');
    expect(error.message).toContain('/checks/ttlMs: must be integer');
    expect(error.message).toContain('/limits/memoryMb: must be >= 16');
    expect(error.message).toContain('/colour: is not an allowed property');
    expect(error.data).toMatchObject({ file: path.join(fixture('project', 'bad'), '.toolshedrc.json'), pointer: expect.any(String), expected: expect.any(String) });
  });

  it('validates a config object too, and explains a bad plugin entry', async () => {
    const error = (await createToolHost({ cwd: fixture('project'), env, config: { plugins: [{ package: 'x', trust: 'maybe' }] } as never }).catch((e: unknown) => e)) as ToolshedError;
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('/plugins/0/trust: must be one of "trusted", "untrusted"');
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

  it("does not read a plugin package's own toolshed field as a host config", async () => {
    const work = tempDir();
    try {
      writeFileSync(path.join(work.dir, 'package.json'), JSON.stringify({ name: 'toolshed-plugin-x', toolshed: { apiVersion: 1 } }));
      await withHost({ cwd: work.dir, env }, async (host) => {
        expect(host.config.file).toBeUndefined();
        expect(host.config.builtins).toBe(true);
      });
    } finally {
      work.cleanup();
    }
  });
});
