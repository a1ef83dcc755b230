/**
 * The packed package, shared by the e2e tests that install it (test/package/*): `npm pack`
 * the repository once per run and install the tarball into two fresh apps with
 * `npm install --offline` (every package comes from the npm cache that `npm ci` filled; no
 * network). pack-setup.ts (the e2e project's global setup) starts this in the background
 * when the run starts; a test awaits `packedApps()`, which resolves when both apps are in
 * place and throws what npm said when they could not be made.
 *
 * The apps' lockfiles are the repository's lockfile cut down to toolshed's own dependencies,
 * so npm needs no registry metadata. Each agent framework's current and previous major is
 * installed strictly (npm checks toolshed's peer ranges; no --legacy-peer-deps, no --force) in
 * one of the two apps: `app` holds the previous majors (and LangChain, whose previous major
 * the adapter does not support), `appCurrent` the current ones. The repository installs a
 * second version of a framework under an alias (`ai-v7`); an app's lockfile files it under
 * the framework's own name.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder pack-setup.ts packs and installs into (its `ready.json` or `failed.txt` says when it is done). */
    packedAppsDir: string;
  }
}

/**
 * The suite's own state and cache folders (as in ../helpers.ts, which this module does not import: the global setup
 * loads it).
 */
const suiteHome = () => ({
  ...(process.env.XDG_STATE_HOME ? { XDG_STATE_HOME: process.env.XDG_STATE_HOME } : {}),
  ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}),
});

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const TSC = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
export const repoPkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
const repoLock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8'));
// Offline, quiet, and never asking the registry whether npm itself is current.
export const NPM_ENV = {
  ...process.env,
  npm_config_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  FORCE_COLOR: '0',
};
export const ENV = { ...suiteHome(), PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LANG: 'C.UTF-8' };

/**
 * A framework as an app installs it: its name, and the folder of the repository's node_modules that holds the wanted
 * version (an alias for a second version).
 */
export interface Framework {
  name: string;
  installedAs: string;
}

/**
 * The previous majors (on 0.x each minor is one), with LangChain 1: the adapter needs LangChain 1 (see
 * docs/embedding.md).
 */
export const PREVIOUS: Framework[] = [
  { name: 'ai', installedAs: 'ai' },
  { name: '@openai/agents', installedAs: 'openai-agents-v19' },
  { name: 'langchain', installedAs: 'langchain' },
  { name: '@langchain/core', installedAs: '@langchain/core' },
];
/** The current majors. */
export const CURRENT: Framework[] = [
  { name: 'ai', installedAs: 'ai-v7' },
  { name: '@openai/agents', installedAs: '@openai/agents' },
];
/** What every app installs besides toolshed and its frameworks. */
const PLAIN = ['@types/node', 'zod'];

type LockEntry = {
  version?: string;
  name?: string;
  dev?: boolean;
  devOptional?: boolean;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
const lockPackages = repoLock.packages as Record<string, LockEntry>;

/** The version of `framework` the app installs: the one the repository locked in its folder. */
export const lockedVersion = (framework: Framework) => lockPackages[`node_modules/${framework.installedAs}`]!.version!;

/**
 * The app's lockfile: toolshed from the tarball, and the repository's locked entries for toolshed's dependencies, PLAIN
 * and the frameworks, each framework filed under its own name.
 */
function appLock(tarball: string, devDependencies: Record<string, string>, frameworks: Framework[]) {
  const packages: Record<string, unknown> = {
    '': { name: 'fresh-app', dependencies: { toolshed: `file:${tarball}` }, devDependencies },
    'node_modules/toolshed': {
      version: repoPkg.version,
      resolved: `file:${tarball}`,
      license: repoPkg.license,
      dependencies: repoPkg.dependencies,
      peerDependencies: repoPkg.peerDependencies,
      peerDependenciesMeta: repoPkg.peerDependenciesMeta,
      bin: repoPkg.bin,
      engines: repoPkg.engines,
    },
  };
  const file = (key: string, entry: unknown) => {
    if (key in packages && packages[key] !== entry) throw new Error(`two lock entries for ${key}`);
    packages[key] = entry;
  };
  const wanted = lockClosure(PLAIN);
  for (const [key, entry] of Object.entries(lockPackages)) {
    if (!key.startsWith('node_modules/') || entry.link) continue;
    if ((!entry.dev && !entry.devOptional) || wanted.has(key)) file(key, entry);
  }
  for (const framework of frameworks) {
    const from = `node_modules/${framework.installedAs}`;
    for (const key of lockClosure([framework.installedAs])) {
      if (key !== from && !key.startsWith(`${from}/`)) file(key, lockPackages[key]);
      else {
        // An aliased copy (and what is nested in it) moves to the framework's own name; the alias's `name` goes.
        const { name: _alias, ...entry } = lockPackages[key]!;
        file(
          `node_modules/${framework.name}${key.slice(from.length)}`,
          framework.name === framework.installedAs ? lockPackages[key] : entry,
        );
      }
    }
  }
  return { name: 'fresh-app', lockfileVersion: 3, requires: true, packages };
}

/**
 * Lock keys of `names` and everything they depend on (optional and required peer dependencies too), resolved the way
 * node looks up node_modules (a nested copy first).
 */
function lockClosure(names: string[]): Set<string> {
  const packages = lockPackages;
  const needs = (entry: LockEntry | undefined) => [
    ...Object.keys(entry?.dependencies ?? {}),
    ...Object.keys(entry?.optionalDependencies ?? {}),
    ...Object.keys(entry?.peerDependencies ?? {}).filter((peer) => !entry?.peerDependenciesMeta?.[peer]?.optional),
  ];
  const found = new Set<string>();
  const locate = (from: string, name: string): string | undefined => {
    for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
      const key = `${dir ? `${dir}/` : ''}node_modules/${name}`;
      if (packages[key]) return key;
      if (!dir) return undefined;
    }
  };
  const queue = names.map((name) => locate('', name)).filter((key): key is string => key !== undefined);
  for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
    if (found.has(key)) continue;
    found.add(key);
    for (const dep of needs(packages[key])) {
      const at = locate(key, dep);
      if (at) queue.push(at);
    }
  }
  return found;
}

export function run(command: string, args: string[], cwd: string, input?: string) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: ENV, input, timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `run`, leaving the event loop free (for a script that talks to a server in this process). */
export function runAsync(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...ENV, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** What pack-setup.ts made: the tarball, the two apps, and the installed package and bin of the first. */
export interface PackedApps {
  tarball: string;
  app: string;
  appCurrent: string;
  installed: string;
  bin: string;
}

/** Writes an app's package.json, lockfile and notes.txt into `dir` and installs it offline and strictly. */
async function installApp(dir: string, tarball: string, frameworks: Framework[]): Promise<void> {
  mkdirSync(dir);
  const devDependencies = Object.fromEntries([
    ...PLAIN.map((name) => [name, repoPkg.devDependencies[name]]),
    ...frameworks.map((f) => [f.name, lockedVersion(f)]),
  ]);
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify(
      {
        name: 'fresh-app',
        private: true,
        type: 'module',
        dependencies: { toolshed: `file:${tarball}` },
        devDependencies,
      },
      null,
      2,
    ),
  );
  writeFileSync(
    path.join(dir, 'package-lock.json'),
    JSON.stringify(appLock(tarball, devDependencies, frameworks), null, 2),
  );
  writeFileSync(path.join(dir, 'notes.txt'), 'first line of the notes\nsecond line\n');
  // No --legacy-peer-deps, no --force: npm refuses a framework version outside toolshed's peer ranges.
  await promisify(execFile)('npm', ['install', '--offline', '--no-audit', '--no-fund'], {
    cwd: dir,
    env: NPM_ENV,
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Packs the repository into `dir` (from the build `npm test` made) and installs both apps side by side. */
export async function packApps(dir: string): Promise<PackedApps> {
  // --ignore-scripts: packing does not rebuild dist under the tests that are running.
  const { stdout } = await promisify(execFile)(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', dir],
    { cwd: REPO, env: NPM_ENV, maxBuffer: 64 * 1024 * 1024 },
  );
  const tarball = path.join(dir, JSON.parse(stdout)[0].filename);
  const app = path.join(dir, 'app');
  const appCurrent = path.join(dir, 'app-current');
  await Promise.all([installApp(app, tarball, PREVIOUS), installApp(appCurrent, tarball, CURRENT)]);
  return {
    tarball,
    app,
    appCurrent,
    installed: path.join(app, 'node_modules', 'toolshed'),
    bin: path.join(app, 'node_modules', '.bin', 'toolshed'),
  };
}

let waiting: Promise<PackedApps> | undefined;

/** The apps pack-setup.ts is making: resolves when they are ready, throws npm's error when they could not be made. */
export function packedApps(): Promise<PackedApps> {
  waiting ??= new Promise((resolve, reject) => {
    const dir = inject('packedAppsDir');
    const deadline = Date.now() + 600_000;
    const look = () => {
      if (existsSync(path.join(dir, 'failed.txt')))
        reject(
          new Error(`packing or installing the tarball failed:\n${readFileSync(path.join(dir, 'failed.txt'), 'utf8')}`),
        );
      else if (existsSync(path.join(dir, 'ready.json')))
        resolve(JSON.parse(readFileSync(path.join(dir, 'ready.json'), 'utf8')));
      else if (Date.now() > deadline) reject(new Error(`the tarball's apps were not ready within 10 minutes (${dir})`));
      else setTimeout(look, 100);
    };
    look();
  });
  return waiting;
}
