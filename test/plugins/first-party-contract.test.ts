// Every first-party plugin is a package built exactly as a third party would build one.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';

const PLUGINS = fileURLToPath(new URL('../../plugins/', import.meta.url));
const dirs = readdirSync(PLUGINS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => path.join(PLUGINS, d.name));

type Tool = {
  name: string;
  toolset: string;
  handler: unknown;
  parameters: { properties?: Record<string, { description?: string }> };
  description: unknown;
};

describe.each(dirs.map((dir) => [path.basename(dir), dir]))('plugins/%s', (_name, dir) => {
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));

  it('is an ESM toolshed plugin package with exactly pinned dependencies and its own tests', () => {
    expect(pkg).toMatchObject({
      name: expect.stringMatching(/^@toolshed\//),
      private: true,
      type: 'module',
      exports: './index.js',
      toolshed: { apiVersion: 1 },
      peerDependencies: { toolshed: '^1' },
      scripts: { test: 'vitest run' },
    });
    for (const version of Object.values<string>({ ...pkg.dependencies, ...pkg.devDependencies }))
      expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(readdirSync(path.join(dir, 'test')).some((f) => f.endsWith('.test.js'))).toBe(true);
  });

  it('exports a plain plugin object whose tools have valid, described JSON Schemas', async () => {
    const plugin = (await import(pathToFileURL(path.join(dir, 'index.js')).href)).default as {
      apiVersion: number;
      toolsets?: Record<string, unknown>;
      tools?: Tool[];
    };
    expect(plugin.apiVersion).toBe(pkg.toolshed.apiVersion);
    const ajv = new Ajv({ strict: true, allErrors: true });
    const tools = plugin.tools ?? [];
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(Object.keys(plugin.toolsets ?? {})).toContain(tool.toolset);
      expect(typeof tool.handler).toBe('function');
      expect(() => ajv.compile(tool.parameters)).not.toThrow();
      expect(tool.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      for (const prop of Object.values(tool.parameters.properties ?? {}))
        expect(prop.description).toEqual(expect.any(String));
      // Plain text must not name another tool: only conditional parts may, so the host can drop them.
      const parts = Array.isArray(tool.description) ? tool.description : [tool.description];
      const others = tools.map((t) => t.name).filter((n) => n !== tool.name);
      for (const part of parts.filter((p): p is string => typeof p === 'string'))
        for (const other of others) expect(part).not.toContain(other);
    }
  });
});
