import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import plugin from '../index.js';

const siblings = ['file', 'terminal', 'web', 'todo'];

describe('@toolshed/default', () => {
  it('has no tools and one toolset including the everyday ones', () => {
    expect(plugin.apiVersion).toBe(1);
    expect(plugin.tools).toEqual([]);
    expect(plugin.toolsets).toEqual({ default: { description: 'The everyday toolsets', includes: siblings } });
  });

  it('includes only toolsets that the first-party plugins really define', async () => {
    for (const name of siblings) {
      const sibling = (await import(`../../${name}/index.js`)).default;
      expect(Object.keys(sibling.toolsets)).toContain(name);
    }
  });

  it('is a toolshed plugin package', async () => {
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    expect(pkg).toMatchObject({
      name: '@toolshed/default',
      type: 'module',
      main: 'index.js',
      exports: './index.js',
      toolshed: { apiVersion: 1 },
      peerDependencies: { toolshed: '^1' },
    });
  });
});
