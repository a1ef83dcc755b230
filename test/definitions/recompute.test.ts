/**
 * A recompute reuses what did not change (layer 1, resolved descriptions, guard
 * findings) and must still be exactly what a fresh host computes: descriptions
 * follow every flip, including of tools that were hidden while another flipped.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
  ],
};
`,
);

type McpTool = { name: string; description: string };

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
