/**
 * Where a host works: the root from the cwd, the config and --root, ctx.cwd, and the manifest cache
 * in the user's cache folder. The CLI's commands run by main() in this process (test/helpers.ts's
 * toolshedMain), but a start from cwd / as a real process: only a process has that cwd.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, tempDir, withHost, suiteHome, toolshedMain } from '../helpers.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
let work: { dir: string; cleanup(): void };
let userCache: { dir: string; cleanup(): void };

beforeEach(() => {
  work = tempDir('toolshed-root-');
  userCache = tempDir('toolshed-xdg-');
});
afterEach(() => {
  work.cleanup();
  userCache.cleanup();
});

const where = { package: fixture('plugins', 'where'), trust: 'trusted' as const };
const cwdOf = async (options: Parameters<typeof withHost>[0]) =>
  withHost(options, async (host) => JSON.parse(await host.dispatch('where', {})).cwd as string);

const env = () => ({ ...suiteHome(), PATH: process.env.PATH ?? '', XDG_CACHE_HOME: userCache.dir });

/** `toolshed ARGS` as a real process in `cwd`. */
function toolshed(args: string[], cwd: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: env(), timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `toolshed ARGS` in `cwd`, run by main() in this process. */
const run = (args: string[], cwd: string) => toolshedMain(args, { cwd, env: env() });

function project(config: Record<string, unknown>, sub = ''): string {
  const dir = path.join(work.dir, sub);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), '{"name":"root-project","private":true}');
  writeFileSync(path.join(dir, '.toolshedrc.json'), JSON.stringify({ builtins: false, plugins: [where], ...config }));
  return dir;
}

describe('workspace root', () => {
  it('defaults to the cwd, and ctx.cwd is the root', async () => {
    const dir = project({ cache: { enabled: false } });
    expect(await cwdOf({ cwd: dir, env: {} })).toBe(dir);
  });

  it('takes the config key relative to the config file, and an explicit root over it', async () => {
    const dir = project({ cache: { enabled: false }, root: './workspace' });
    mkdirSync(path.join(dir, 'workspace'));
    // The config is found from a folder below; root still resolves from the config's own folder.
    mkdirSync(path.join(dir, 'deeper'));
    expect(await cwdOf({ cwd: path.join(dir, 'deeper'), env: {} })).toBe(path.join(dir, 'workspace'));
    expect(await cwdOf({ cwd: dir, root: work.dir, env: {} })).toBe(work.dir);
  });

  it('--root sets ctx.cwd for the CLI and starts the config search there', async () => {
    const app = project({ cache: { enabled: false } }, 'app');
    const elsewhere = path.join(work.dir, 'elsewhere');
    mkdirSync(elsewhere);
    const result = await run(['call', 'where', '--root', app], elsewhere);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).cwd).toBe(app);
    const summary = await run(['--root', 'app'], work.dir);
    expect(summary.stdout).toContain(`config: ${path.join(app, '.toolshedrc.json')}`);
    expect(summary.stdout).toContain(`root: ${app}`);
  });

  it("caches manifests in the user's cache folder, never under the root's node_modules/.cache, even when that folder exists", async () => {
    const dir = project({});
    mkdirSync(path.join(dir, 'node_modules', '.cache'), { recursive: true });
    const first = await run(['explain', '--json'], dir);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).plugins[0].manifestSource).toBe('extracted');
    expect(readdirSync(path.join(dir, 'node_modules', '.cache'))).toEqual([]);
    expect(readdirSync(path.join(dir, 'node_modules'))).toEqual(['.cache']);
    expect(readdirSync(path.join(userCache.dir, 'toolshed', 'manifests'))).toHaveLength(1);
    expect(JSON.parse((await run(['explain', '--json'], dir)).stdout).plugins[0].manifestSource).toBe('cache');
  });

  it('launched with cwd / (as MCP clients do), it writes nothing at / and works in --root', () => {
    const app = project({}, 'app');
    const result = toolshed(['call', 'where', '--config', path.join(app, '.toolshedrc.json'), '--root', app], '/');
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).cwd).toBe(app);
    expect(existsSync('/node_modules/.cache/toolshed')).toBe(false);
    expect(readdirSync(path.join(userCache.dir, 'toolshed', 'manifests'))).toHaveLength(1);
  });

  it('reports the root in explain', async () => {
    const dir = realpathSync(project({ cache: { enabled: false } }));
    await withHost({ cwd: dir, env: {} }, async (host) => expect(host.explain().config.root).toBe(dir));
  });
});
