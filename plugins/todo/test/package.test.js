import { readFile } from 'node:fs/promises';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import plugin from '../index.js';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));

describe(`${pkg.name} package`, () => {
  it('is an ESM toolshed plugin package with exactly pinned dependencies', () => {
    expect(pkg).toMatchObject({
      version: '1.0.0',
      private: true,
      type: 'module',
      main: 'index.js',
      exports: './index.js',
      toolshed: { apiVersion: 1 },
      peerDependencies: { toolshed: '^1' },
      scripts: { test: 'vitest run' },
    });
    for (const version of Object.values({ ...pkg.dependencies, ...pkg.devDependencies })) expect(version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('exports a plain plugin object whose tools have valid, described JSON Schemas', () => {
    expect(plugin.apiVersion).toBe(pkg.toolshed.apiVersion);
    const ajv = new Ajv({ strict: true, allErrors: true });
    for (const tool of plugin.tools) {
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(Object.keys(plugin.toolsets)).toContain(tool.toolset);
      expect(typeof tool.handler).toBe('function');
      expect(() => ajv.compile(tool.parameters)).not.toThrow();
      expect(tool.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      for (const prop of Object.values(tool.parameters.properties)) expect(prop.description).toEqual(expect.any(String));
      const parts = Array.isArray(tool.description) ? tool.description : [tool.description];
      // Plain text must not name another tool: only conditional parts may, so the host can drop them.
      const others = plugin.tools.map((t) => t.name).filter((n) => n !== tool.name);
      for (const part of parts.filter((p) => typeof p === 'string')) for (const other of others) expect(part).not.toContain(other);
    }
  });
});
