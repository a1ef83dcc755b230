/**
 * What a stdio MCP server's `command` really runs. `node script.js` and
 * `npx [-y] package` of a package installed next to the config are a
 * JavaScript server run by this host's node binary, which can then be held
 * by Node's permission model and needs only its own package and the
 * node_modules folders it resolves from. Anything else (`uvx`, `python`,
 * `docker`, an npx package that would be downloaded) is a program found on
 * PATH, run as written.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
// Only the two functions used: the package's index loads all of its ~50 modules at startup.
import satisfies from 'semver/functions/satisfies.js';
import validRange from 'semver/ranges/valid.js';
import which from 'which';

/** A JavaScript server run by this host's node. */
interface NodeProgram {
  runtime: 'node';
  /** process.execPath */
  command: string;
  /** node flags written in the config before the script */
  nodeFlags: string[];
  /** the entry script's real path */
  script: string;
  scriptArgs: string[];
  /** how `command` became this, for explain */
  note?: string;
}

/** Any other program. */
interface SystemProgram {
  runtime: 'system';
  /** absolute when it was found on PATH, else as written (starting it will fail and say so) */
  command: string;
  args: string[];
  note?: string;
}

/** Either kind of program. */
export type Program = NodeProgram | SystemProgram;

/** node flags whose value is the next argument. */
const NODE_FLAGS_WITH_VALUE = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '-C',
  '--conditions',
  '--env-file',
  '--title',
  '--inspect-port',
]);
/** node flags that run code given inline: there is no script file to hold to a package. */
const NODE_INLINE = new Set(['-e', '--eval', '-p', '--print', '-i', '--interactive']);
/** npx flags that take no value. */
const NPX_SWITCHES = new Set(['-y', '--yes', '-q', '--quiet', '--no', '--no-install', '--ignore-existing']);

function isNode(command: string): boolean {
  const base = path.basename(command);
  return base === 'node' || base === 'nodejs' || command === process.execPath;
}

function realOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

function nodeProgram(args: readonly string[], cwd: string, note?: string): NodeProgram | undefined {
  const flags: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (NODE_INLINE.has(arg)) return undefined;
    if (!arg.startsWith('-')) {
      return {
        runtime: 'node',
        command: process.execPath,
        nodeFlags: flags,
        script: realOrSelf(path.resolve(cwd, arg)),
        scriptArgs: args.slice(i + 1),
        ...(note ? { note } : {}),
      };
    }
    flags.push(arg);
    if (NODE_FLAGS_WITH_VALUE.has(arg) && i + 1 < args.length) flags.push(args[++i]!);
  }
  return undefined;
}

/** `name@range` → name and range (scoped names keep their leading @). */
function splitSpec(spec: string): { name: string; range?: string } {
  const at = spec.indexOf('@', 1);
  return at < 0 ? { name: spec } : { name: spec.slice(0, at), range: spec.slice(at + 1) };
}

/** The folder of package `name` as Node would find it from `dir` (node_modules folders up to the root). */
function findPackage(name: string, dir: string): string | undefined {
  for (let current = dir; ; current = path.dirname(current)) {
    const candidate = path.join(current, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return realOrSelf(candidate);
    if (path.dirname(current) === current) return undefined;
  }
}

/** The bin script `bin` names in the package at `dir`: `command` when given, else the package's own or only bin. */
function binScript(dir: string, name: string, command: string | undefined): string | undefined {
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  if (typeof pkg.bin === 'string') return path.join(dir, pkg.bin);
  const bins = pkg.bin ?? {};
  const wanted = command ?? name.split('/').pop()!;
  const file = bins[wanted] ?? (Object.keys(bins).length === 1 ? Object.values(bins)[0] : undefined);
  return file === undefined ? undefined : path.join(dir, file);
}

/** `npx [flags] package[@range] args…` of a package installed where the config is, as a node program. */
function npxProgram(args: readonly string[], configDir: string): NodeProgram | { unresolved: string } {
  let packageSpec: string | undefined;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (NPX_SWITCHES.has(arg)) continue;
    if (arg === '-p' || arg === '--package') {
      packageSpec = args[++i];
      continue;
    }
    if (arg.startsWith('--package=')) {
      packageSpec = arg.slice('--package='.length);
      continue;
    }
    if (arg.startsWith('-')) return { unresolved: `npx option ${arg} is not understood here` };
    break;
  }
  const positional = args[i];
  if (positional === undefined) return { unresolved: 'npx names no package' };
  const { name, range } = splitSpec(packageSpec ?? positional);
  const dir = findPackage(name, configDir);
  if (!dir) return { unresolved: `${name} is not installed next to the config, so npx would fetch it` };
  const version =
    (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  if (range && range !== 'latest' && validRange(range) && !satisfies(version, range)) {
    return { unresolved: `the installed ${name} ${version} does not satisfy ${range}` };
  }
  const script = binScript(dir, name, packageSpec ? positional : undefined);
  if (!script) return { unresolved: `${name} has no bin to run` };
  return {
    runtime: 'node',
    command: process.execPath,
    nodeFlags: [],
    script: realOrSelf(script),
    scriptArgs: args.slice(i + 1),
    note: `npx ${name}: the installed ${name} ${version}, run by node`,
  };
}

/** Resolves a configured command for launching in the sandbox. */
export function resolveProgram(
  command: string,
  args: readonly string[],
  options: { cwd: string; configDir: string; path: string | undefined },
): Program {
  const found = () =>
    path.isAbsolute(command) ? command : (which.sync(command, { nothrow: true, path: options.path ?? '' }) ?? command);
  if (isNode(command)) {
    return (
      nodeProgram(args, options.cwd) ?? {
        runtime: 'system',
        command: found(),
        args: [...args],
        note: 'node runs inline code: no script to hold to a package, so no permission model',
      }
    );
  }
  if (path.basename(command) === 'npx') {
    const npx = npxProgram(args, options.configDir);
    if ('runtime' in npx) return npx;
    return {
      runtime: 'system',
      command: found(),
      args: [...args],
      note: `${npx.unresolved}; it runs as written, without Node's permission model (npm install it to change that)`,
    };
  }
  return { runtime: 'system', command: found(), args: [...args] };
}

/** What a node server may read: its package and every node_modules folder its imports resolve from. */
export function nodeReadPaths(script: string): string[] {
  const paths = new Set<string>();
  let dir = path.dirname(script);
  let packageFound = false;
  for (;;) {
    if (!packageFound && existsSync(path.join(dir, 'package.json'))) {
      paths.add(dir);
      packageFound = true;
    }
    const modules = path.join(dir, 'node_modules');
    if (existsSync(modules)) paths.add(realOrSelf(modules));
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  if (!packageFound) paths.add(path.dirname(script));
  return [...paths];
}
