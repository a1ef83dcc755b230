import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, tempDir, withHost } from '../helpers.js';

let work: { dir: string; cleanup(): void };
// The cache of these tests' own, outside the workspace (a cache.dir inside it is refused:
// test/security/manifest-cache.test.ts).
let cacheHome: { dir: string; cleanup(): void };
const config = (extra = '') =>
  `export default { plugins: ['toolshed-plugin-alpha'], builtins: false, cache: { dir: ${JSON.stringify(cacheHome.dir)}${extra} } };\n`;

beforeEach(() => {
  work = tempDir();
  cacheHome = tempDir('toolshed-cache-');
  cpSync(
    fixture('project', 'node_modules', 'toolshed-plugin-alpha'),
    path.join(work.dir, 'node_modules', 'toolshed-plugin-alpha'),
    { recursive: true },
  );
  // node_modules/.cache present, as build tools leave it: the cache still never goes there.
  mkdirSync(path.join(work.dir, 'node_modules', '.cache'));
  writeFileSync(path.join(work.dir, 'package.json'), JSON.stringify({ name: 'cache-project', private: true }));
  writeFileSync(path.join(work.dir, 'toolshed.config.mjs'), config());
});
afterEach(() => {
  work.cleanup();
  cacheHome.cleanup();
});

const start = <T>(fn: Parameters<typeof withHost<T>>[1], trustConfig = false) =>
  withHost<T>({ cwd: work.dir, env: { PATH: process.env.PATH }, trustConfig }, fn);
/** `edited`: the test (the operator) changed the config since the last start, and accepts it. */
const source = async (edited = false) =>
  start(
    async (host) => ({ source: host.explain().plugins[0]!.manifestSource, pool: host.explain().extractionPoolStarted }),
    edited,
  );

describe('manifest cache', () => {
  it('extracts on the first start and reads the cache on the second, starting no worker', async () => {
    expect(await source()).toEqual({ source: 'extracted', pool: true });
    expect(await source()).toEqual({ source: 'cache', pool: false });
    // Cached manifests still dispatch to the real plugin.
    await start(async (host) => expect(JSON.parse(await host.dispatch('alpha_echo', {})).helper).toBe('helped'));
  });

  it('stores authenticated entries in the cache folder, none under node_modules/.cache', async () => {
    await source();
    const folder = path.join(cacheHome.dir, 'manifests');
    // Its MAC on the first line, then the JSON body the MAC covers.
    const [mac, text] = readFileSync(path.join(folder, readdirSync(folder)[0]!), 'utf8').split('\n');
    expect(mac).toMatch(/^[0-9a-f]{64}$/);
    const body = JSON.parse(text!);
    expect(body.plugin).toBe('toolshed-plugin-alpha');
    expect(body.manifest.tools.map((t: { name: string }) => t.name)).toEqual(['alpha_echo', 'alpha_only']);
    expect(readdirSync(path.join(work.dir, 'node_modules', '.cache'))).toEqual([]);
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

  it('uses a configured cache folder outside the workspace and can be turned off', async () => {
    const elsewhere = path.join(cacheHome.dir, 'elsewhere');
    writeFileSync(
      path.join(work.dir, 'toolshed.config.mjs'),
      `export default { plugins: ['toolshed-plugin-alpha'], builtins: false, cache: { dir: ${JSON.stringify(elsewhere)} } };\n`,
    );
    await source();
    expect(existsSync(path.join(elsewhere, 'manifests'))).toBe(true);
    expect((await source()).source).toBe('cache');
    writeFileSync(path.join(work.dir, 'toolshed.config.mjs'), config(', enabled: false'));
    expect((await source(true)).source).toBe('extracted');
  });
});
