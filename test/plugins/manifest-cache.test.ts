import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, tempDir, withHost } from '../helpers.js';

let work: { dir: string; cleanup(): void };

beforeEach(() => {
  work = tempDir();
  cpSync(fixture('project', 'node_modules', 'toolshed-plugin-alpha'), path.join(work.dir, 'node_modules', 'toolshed-plugin-alpha'), { recursive: true });
  // With node_modules/.cache present the cache stays in the project (test/workspace covers the user-folder default).
  mkdirSync(path.join(work.dir, 'node_modules', '.cache'));
  writeFileSync(path.join(work.dir, 'package.json'), JSON.stringify({ name: 'cache-project', private: true }));
  writeFileSync(path.join(work.dir, 'toolshed.config.mjs'), "export default { plugins: ['toolshed-plugin-alpha'], builtins: false };\n");
});
afterEach(() => work.cleanup());

const start = <T>(fn: Parameters<typeof withHost<T>>[1], trustConfig = false) => withHost<T>({ cwd: work.dir, env: { PATH: process.env.PATH }, trustConfig }, fn);
/** `edited`: the test (the operator) changed the config since the last start, and accepts it. */
const source = async (edited = false) => start(async (host) => ({ source: host.explain().plugins[0]!.manifestSource, pool: host.explain().extractionPoolStarted }), edited);

describe('manifest cache', () => {
  it('extracts on the first start and reads the cache on the second, starting no worker', async () => {
    expect(await source()).toEqual({ source: 'extracted', pool: true });
    expect(await source()).toEqual({ source: 'cache', pool: false });
    // Cached manifests still dispatch to the real plugin.
    await start(async (host) => expect(JSON.parse(await host.dispatch('alpha_echo', {})).helper).toBe('helped'));
  });

  it('stores entries under the root\'s node_modules/.cache/toolshed when that folder exists', async () => {
    await source();
    const stored = JSON.parse(
      readFileSync(path.join(work.dir, 'node_modules', '.cache', 'toolshed', 'manifests', (await import('node:fs')).readdirSync(path.join(work.dir, 'node_modules', '.cache', 'toolshed', 'manifests'))[0]!), 'utf8'),
    );
    expect(stored.plugin).toBe('toolshed-plugin-alpha');
    expect(stored.manifest.tools.map((t: { name: string }) => t.name)).toEqual(['alpha_echo', 'alpha_only']);
  });

  it('invalidates the entry when the entry module is edited', async () => {
    await source();
    const entry = path.join(work.dir, 'node_modules', 'toolshed-plugin-alpha', 'index.js');
    writeFileSync(entry, readFileSync(entry, 'utf8').replace("'Only alpha has this.'", "'Edited description.'"));
    expect(await source()).toEqual({ source: 'extracted', pool: true });
    await start(async (host) => {
      const defs = (await host.definitions({ format: 'mcp' })) as Array<{ name: string; description: string }>;
      expect(defs.find((d) => d.name === 'alpha_only')?.description).toBe('Edited description.');
    });
  });

  it('invalidates the entry when another file of the package changes', async () => {
    await source();
    const helper = path.join(work.dir, 'node_modules', 'toolshed-plugin-alpha', 'lib', 'helper.js');
    writeFileSync(helper, "export const helper = () => 'helped again, with more bytes';\n");
    expect((await source()).source).toBe('extracted');
  });

  it('uses a configured cache folder and can be turned off', async () => {
    writeFileSync(path.join(work.dir, 'toolshed.config.mjs'), "export default { plugins: ['toolshed-plugin-alpha'], builtins: false, cache: { dir: '.cache-here' } };\n");
    await source();
    expect((await import('node:fs')).existsSync(path.join(work.dir, '.cache-here', 'manifests'))).toBe(true);
    expect((await source()).source).toBe('cache');
    writeFileSync(path.join(work.dir, 'toolshed.config.mjs'), "export default { plugins: ['toolshed-plugin-alpha'], builtins: false, cache: { enabled: false } };\n");
    expect((await source(true)).source).toBe('extracted');
  });
});
