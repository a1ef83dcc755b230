/**
 * The protected paths: what stays read-only to the model's tools even inside a
 * writable root, because the host later loads, imports or starts it with its full
 * power (or the user's own tools run it). Computed once per host from the config
 * and the plugins it resolved, and handed to every plugin as `ctx.roots.protect`
 * (docs/security.md, "The model as an attacker").
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleUrl } from './module-url.js';
import { realOrResolved } from '../../boundary/launch/paths.js';
import { SEARCH_PLACES, type ResolvedConfig } from '../config/config.js';
import { userCacheDir, userStateDir } from '../state/user-dirs.js';
import type { ProtectedPath } from '../../boundary/plugin-api.js';
import type { PluginSource } from './types.js';

/** toolshed's own package folder (dist/core/load/protect.js → three levels up). */
const TOOLSHED_DIR = fileURLToPath(new URL('../../../', import.meta.url));

/** The names protected wherever they appear, whether or not they exist. */
const NAMES: readonly ProtectedPath[] = [
  ...SEARCH_PLACES.filter((place) => place !== 'package.json').map((place): ProtectedPath => ({ kind: 'name', value: place, why: 'toolshed loads a file of this name as its config (and runs a .js/.mjs/.cjs/.ts one)' })),
  { kind: 'name', value: '.git/hooks', why: 'git runs the hooks in it with your rights' },
  { kind: 'name', value: '.git/config', why: 'git runs the programs it names (core.fsmonitor, core.hooksPath, aliases, filters) with your rights' },
];

/** The file a hooks specifier names, as the host will import it (module-url.ts). */
function hookFile(specifier: string, dir: string): string | undefined {
  try {
    return fileURLToPath(moduleUrl(specifier, dir));
  } catch {
    return undefined; // not installed: loading the hooks reports it
  }
}

/** The node_modules folder holding toolshed, when it is installed as a package (its dependencies and its workers' code live there too). */
function enclosingNodeModules(dir: string): string | undefined {
  const parts = path.resolve(dir).split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  return at > 0 ? parts.slice(0, at + 1).join(path.sep) : undefined;
}

/**
 * Every protected path of a host with `config` whose plugins resolved to `sources`:
 * the config file names (anywhere), `.git/hooks` and `.git/config` (anywhere), the
 * config in use, its hooks modules, every plugin's folder, toolshed's own install
 * (and the node_modules that holds it), toolshed's cache and state folders, and the
 * config's own `protect` list.
 */
export function protectedPaths(config: Pick<ResolvedConfig, 'file' | 'dir' | 'hooks' | 'cache' | 'protect'>, sources: readonly PluginSource[]): ProtectedPath[] {
  const out: ProtectedPath[] = [...NAMES];
  const seen = new Set<string>();
  const add = (p: string | undefined, why: string) => {
    if (p === undefined) return;
    // Real paths, so the file tools (which check real paths) compare like with like.
    const value = realOrResolved(p);
    if (seen.has(value)) return;
    seen.add(value);
    out.push({ kind: 'path', value, why });
  };
  if (config.file) add(config.file, path.basename(config.file) === 'package.json' ? 'it holds the config in use (its toolshed field)' : 'it is the config in use');
  for (const specifier of config.hooks) add(hookFile(specifier, config.dir), 'a hooks module the config names (the host imports it)');
  const modules = enclosingNodeModules(TOOLSHED_DIR);
  add(modules ?? TOOLSHED_DIR, modules ? 'it holds toolshed and the packages the host and its workers run' : "it is toolshed's own install (the host and its workers run it)");
  for (const source of sources) if (!source.builtin) add(source.dir, `it holds plugin ${source.name}'s code (${source.trust}), which the host runs`);
  if (config.cache.dir !== undefined) add(config.cache.dir, "it is toolshed's cache");
  add(userStateDir(), "it is toolshed's state (trust records, keys)");
  add(userCacheDir(), "it is toolshed's cache");
  for (const entry of config.protect) add(path.resolve(config.dir, entry), "the config's protect list names it");
  return out;
}
