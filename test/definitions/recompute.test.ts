/**
 * A recompute reuses what did not change (layer 1, resolved descriptions, guard
 * findings) and must still be exactly what a fresh host computes: descriptions
 * follow every flip, including of tools that were hidden while another flipped.
 * Through a host: a provider format made from an unchanged list is reused. The
 * rest (every flip against a fresh computation, schema rewriters asked again,
 * env before platforms) is tested on the pipeline: test/unit/availability.test.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir, withHost } from '../helpers.js';

const work = tempDir();
afterAll(() => work.cleanup());

const dir = path.join(work.dir, 'flip');
mkdirSync(dir, { recursive: true });
writeFileSync(
  path.join(dir, 'package.json'),
  JSON.stringify({
    name: 'toolshed-plugin-flip',
    version: '1.0.0',
    type: 'module',
    main: 'index.js',
    toolshed: { apiVersion: 1 },
  }),
);
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

const options = (env: Record<string, string | undefined>) => ({
  cwd: work.dir,
  env,
  config: { builtins: false, cache: { enabled: false }, plugins: [{ package: dir, trust: 'trusted' as const }] },
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
});
