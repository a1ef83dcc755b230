/**
 * A recompute reuses what did not change (layer 1, resolved descriptions, guard
 * findings) and must still be exactly what a fresh host computes: descriptions
 * follow every flip, including of tools that were hidden while another flipped.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ToolHost } from 'toolshed';
import { tempDir, withHost } from '../helpers.js';

const work = tempDir();
afterAll(() => work.cleanup());

const dir = path.join(work.dir, 'flip');
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'toolshed-plugin-flip', version: '1.0.0', type: 'module', main: 'index.js', toolshed: { apiVersion: 1 } }));
writeFileSync(
  path.join(dir, 'index.js'),
  `const obj = { type: 'object' };
export default {
  apiVersion: 1,
  tools: [
    { name: 'search', description: 'Search.', parameters: obj, requires: { env: ['KEY_S'] }, handler: () => 's' },
    { name: 'browse', description: ['Browse.', { ifAvailable: ['search'], text: 'Prefer search.' }], parameters: obj, requires: { env: ['KEY_B'] }, handler: () => 'b' },
    { name: 'notes', description: 'Notes; feed them search results.', parameters: obj, handler: () => 'n' },
    { name: 'elsewhere', description: 'Runs elsewhere.', parameters: obj, requires: { env: ['KEY_E'], platforms: ['win32', 'darwin', 'aix'].filter((p) => p !== process.platform).slice(0, 2) }, handler: () => 'e' },
  ],
};
`,
);

type McpTool = { name: string; description: string };

const options = (env: Record<string, string | undefined>, extra: Record<string, unknown> = {}) => ({
  cwd: work.dir,
  env,
  config: { builtins: false, cache: { enabled: false }, plugins: [{ package: dir, trust: 'trusted' as const }] },
  ...extra,
});

describe('a recompute in which no verdict changed', () => {
  it('hands back the same lists, so a provider format made from them is reused; a flip makes new ones', async () => {
    const env: Record<string, string | undefined> = { KEY_S: '1', KEY_B: '1' };
    await withHost(options(env), async (host) => {
      const first = await host.definitions({ format: 'openai' });
      host.invalidateChecks();
      expect(await host.definitions({ format: 'openai' })).toBe(first);
      delete env.KEY_S;
      host.invalidateChecks();
      const flipped = await host.definitions({ format: 'openai' });
      expect(flipped).not.toBe(first);
      expect(flipped.map((t) => t.function.name)).toEqual(['browse', 'notes']);
      expect(flipped[0]!.function.description).toBe('Browse.');
    });
  });

  it('asks a schema rewriter again unless it says it is pure, and a pure one again when a verdict changed', async () => {
    let asked = 0;
    const suffix = (pure: boolean) => ({
      ...(pure ? { pure } : {}),
      appliesTo: (record: { name: string }) => record.name === 'search',
      rewrite: async (definition: { description: string }) => ({ definition: { ...definition, description: `${definition.description} (${++asked})` } }),
    });
    const env: Record<string, string | undefined> = { KEY_S: '1', KEY_B: '1' };
    const search = async (host: ToolHost) => {
      host.invalidateChecks();
      return (await host.definitions({ format: 'mcp' })).find((t) => t.name === 'search')?.description;
    };
    await withHost(options(env, { rewriters: [suffix(true)] }), async (host) => {
      expect(await search(host)).toBe('Search. (1)');
      expect(await search(host)).toBe('Search. (1)');
      // browse went: the pure one is asked again.
      delete env.KEY_B;
      expect(await search(host)).toBe('Search. (2)');
    });
    asked = 0;
    env.KEY_B = '1';
    await withHost(options(env, { rewriters: [suffix(false)] }), async (host) => {
      expect(await search(host)).toBe('Search. (2)');
      expect(await search(host)).toBe('Search. (3)');
    });
  });

  it('reports a tool that misses an env var on the wrong platform by its env var, then by its platform', async () => {
    const env: Record<string, string | undefined> = { KEY_S: '1', KEY_B: '1' };
    await withHost(options(env), async (host) => {
      const elsewhere = async () => {
        host.invalidateChecks();
        await host.definitions();
        return host.explain().tools.find((t) => t.name === 'elsewhere');
      };
      expect(await elsewhere()).toMatchObject({ exposed: false, layer: 'availability', reason: 'missing environment variable KEY_E' });
      env.KEY_E = '1';
      expect((await elsewhere())?.reason).toMatch(/^runs only on .* \(this is /);
      delete env.KEY_E;
      expect((await elsewhere())?.reason).toBe('missing environment variable KEY_E');
    });
  });
});

describe('recompute after availability changes', () => {
  it('matches a fresh computation after every flip', async () => {
    const env: Record<string, string | undefined> = { KEY_S: '1', KEY_B: '1' };
    await withHost({ cwd: work.dir, env, config: { builtins: false, cache: { enabled: false }, plugins: [{ package: dir, trust: 'trusted' }] } }, async (host) => {
      const state = async () => {
        host.invalidateChecks();
        const tools = (await host.definitions({ format: 'mcp' })) as McpTool[];
        return { tools: Object.fromEntries(tools.map((t) => [t.name, t.description])), warnings: host.explain().warnings };
      };
      expect(await state()).toEqual({ tools: { browse: 'Browse. Prefer search.', notes: 'Notes; feed them search results.', search: 'Search.' }, warnings: [] });
      // browse hidden, then search goes while browse is hidden
      delete env.KEY_B;
      expect((await state()).tools.browse).toBeUndefined();
      delete env.KEY_S;
      expect(await state()).toEqual({ tools: { notes: 'Notes; feed them search results.' }, warnings: ['description of notes mentions search, which is not exposed'] });
      // browse comes back while search is still hidden: its description is resolved again
      env.KEY_B = '1';
      expect(await state()).toEqual({ tools: { browse: 'Browse.', notes: 'Notes; feed them search results.' }, warnings: ['description of notes mentions search, which is not exposed'] });
      // the same state twice: findings reused, same warnings
      expect((await state()).warnings).toEqual(['description of notes mentions search, which is not exposed']);
      env.KEY_S = '1';
      expect(await state()).toEqual({ tools: { browse: 'Browse. Prefer search.', notes: 'Notes; feed them search results.', search: 'Search.' }, warnings: [] });
    });
  });
});
