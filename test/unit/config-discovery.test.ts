/**
 * Config discovery and validation as a stage: loadConfig (cosmiconfig, module name toolshed)
 * and resolveConfig over the fixture folders, with no host, no worker and no plugin loaded.
 * What a host does with the config it found (resolves the config's plugins from its folder,
 * dispatches to them) is test/config/formats.test.ts, once.
 */
import path from 'node:path';
import { ToolshedError } from 'toolshed';
import { loadConfig, resolveConfig, validateConfigObject } from '#internal/core/config/config.js';
import { describe, expect, it } from 'vitest';
import { fixture, tempDir } from '../helpers.js';
import { writeFileSync } from 'node:fs';

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

/** The error `promise` rejects with. */
async function rejection(promise: Promise<unknown>): Promise<ToolshedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolshedError);
  return error as ToolshedError;
}

describe('config discovery (cosmiconfig, module name toolshed)', () => {
  it.each(FORMATS)(
    'finds %s (%s) by searching from its folder, and reads every source it loaded',
    async (name, file) => {
      const cwd = fixture('project', 'formats', name);
      const loaded = await loadConfig({ cwd });
      expect(loaded.file).toBe(path.join(cwd, file));
      expect(loaded.config.enable).toEqual([`from-${name}`]);
      expect(loaded.config.plugins).toEqual(['toolshed-plugin-alpha']);
      expect([...loaded.sources.keys()]).toContain(path.join(cwd, file));
    },
  );

  it('loads an explicitly named file (--config) with any name, relative to cwd', async () => {
    const loaded = await loadConfig({ cwd: fixture('project'), file: 'explicit/custom-name.mjs' });
    expect(loaded.file).toBe(fixture('project', 'explicit', 'custom-name.mjs'));
    expect(loaded.config.enable).toEqual(['from-explicit']);
  });

  it('reports a missing --config file as CONFIG_INVALID naming it', async () => {
    const error = await rejection(loadConfig({ cwd: fixture('project'), file: 'nope.json' }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('config file not found: nope.json');
  });

  it('refuses a --config that is a directory before reading it (a FIFO: test/config/formats.test.ts)', async () => {
    const error = await rejection(loadConfig({ cwd: fixture('project'), file: '.' }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('the config . is a directory; --config must name a regular file');
  });

  it('reports a bad config with the file, each JSON pointer and what was expected', async () => {
    const file = path.join(fixture('project', 'bad'), '.toolshedrc.json');
    const error = await rejection(loadConfig({ cwd: fixture('project', 'bad') }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(file);
    expect(error.message).toContain('/plugins: must be array');
    expect(error.message).toContain('/checks/ttlMs: must be integer');
    expect(error.message).toContain('/limits/memoryMb: must be >= 16');
    expect(error.message).toContain('/colour: is not an allowed property');
    expect(error.data).toMatchObject({ file, pointer: expect.any(String), expected: expect.any(String) });
  });

  it('validates a config object too, and explains a bad plugin entry', () => {
    expect(() => validateConfigObject({ plugins: [{ package: 'x', trust: 'maybe' }] }, undefined)).toThrow(
      '/plugins/0/trust: must be one of "trusted", "untrusted"',
    );
  });

  it('finds no file where there is none: the embedded default (builtins, every toolset)', async () => {
    const work = tempDir();
    try {
      writeFileSync(path.join(work.dir, 'package.json'), '{"name":"no-config","private":true}');
      const loaded = await loadConfig({ cwd: work.dir });
      expect(loaded).toEqual({ file: undefined, config: {}, sources: new Map() });
      const resolved = resolveConfig(loaded.config, loaded.file, work.dir, 2);
      expect(resolved.builtins).toBe(true);
      expect(resolved.enable).toEqual(['all']);
    } finally {
      work.cleanup();
    }
  });

  it("does not read a plugin package's own toolshed field as a host config, and looks on for a dev config beside it", async () => {
    const work = tempDir();
    try {
      writeFileSync(
        path.join(work.dir, 'package.json'),
        JSON.stringify({ name: 'toolshed-plugin-x', toolshed: { apiVersion: 1 } }),
      );
      expect((await loadConfig({ cwd: work.dir })).file).toBeUndefined();
      writeFileSync(path.join(work.dir, '.toolshedrc.json'), JSON.stringify({ plugins: ['.'] }));
      const dev = await loadConfig({ cwd: work.dir });
      expect(dev.file).toBe(path.join(work.dir, '.toolshedrc.json'));
      expect(dev.config.plugins).toEqual(['.']);
    } finally {
      work.cleanup();
    }
  });
});
