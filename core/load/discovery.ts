/**
 * Plugin resolution: config entries (package names resolved from the config
 * file's folder, or paths relative to it) and the first-party plugins under
 * plugins/, each turned into a `PluginSource` after its package.json passes
 * the version checks.
 */
import { existsSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve as resolveModule } from 'import-meta-resolve';
// Only the two functions used: the package's index loads all of its ~50 modules at startup.
import satisfies from 'semver/functions/satisfies.js';
import validRange from 'semver/ranges/valid.js';
import { PluginError } from '../../boundary/errors.js';
import { nearestName } from '../text/suggest.js';
import { dependencyReadRoots } from '../runners/process/dependencies.js';
import { resolveGrantPaths } from '../../boundary/launch/paths.js';
import { TOOLSHED_VERSION, PLUGIN_API_VERSION } from '../../boundary/version.js';
import { isPath, type PluginEntry } from '../config/config.js';
import type { FirstPartyClaims, PluginSource } from './types.js';

/** The folder holding the first-party plugin packages. */
const BUILTIN_DIR = fileURLToPath(new URL('../../../plugins/', import.meta.url));

interface PackageJson {
  name?: string;
  version?: string;
  main?: string;
  exports?: unknown;
  toolshed?: { apiVersion?: unknown; firstParty?: FirstPartyClaims };
  peerDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
}

function readPackageJson(dir: string): PackageJson | undefined {
  const file = path.join(dir, 'package.json');
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
  } catch (error) {
    throw new PluginError(
      'PLUGIN_INVALID',
      `${file} is not valid JSON: ${(error as Error).message}`,
      { file },
      { cause: error },
    );
  }
}

/** Walks up from `file` to the folder of the package that contains it. */
function packageDirOf(file: string): string | undefined {
  let dir = path.dirname(file);
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The entry module of a package folder: its exports map as Node resolves it, else main, else index.js. */
function resolveDirEntry(dir: string, pkg: PackageJson = {}): string {
  // Node resolves a package's own name (self-reference) only when it has an exports map.
  if (pkg.name && pkg.exports !== undefined) {
    // Self-reference resolves the package's exports map exactly as Node would.
    try {
      return fileURLToPath(resolveModule(pkg.name, pathToFileURL(path.join(dir, 'package.json')).href));
    } catch {
      // No exports map: fall through to main / index.js.
    }
  }
  const main = path.resolve(dir, pkg.main ?? 'index.js');
  if (existsSync(main)) return main;
  throw new PluginError('PLUGIN_INVALID', `plugin at ${dir} has no entry module (no exports, main or index.js)`, {
    dir,
  });
}

function shortName(name: string): string {
  return name.replace(/^@[^/]+\//, '').replace(/^toolshed-plugin-/, '');
}

/** Default toolset name of a plugin's tools that name none. */
export function defaultToolset(source: Pick<PluginSource, 'name'>): string {
  return shortName(source.name);
}

/** Verdicts on peer ranges seen so far: a hundred plugins asking for the same `^1` parse it once. */
const rangeVerdicts = new Map<string, 'invalid' | 'unmet' | 'met'>();

function rangeVerdict(range: string): 'invalid' | 'unmet' | 'met' {
  let verdict = rangeVerdicts.get(range);
  if (verdict === undefined) {
    verdict = !validRange(range)
      ? 'invalid'
      : satisfies(TOOLSHED_VERSION, range, { includePrerelease: true })
        ? 'met'
        : 'unmet';
    // Ranges come from package.json files: few distinct ones, but never let them pile up.
    if (rangeVerdicts.size >= 256) rangeVerdicts.clear();
    rangeVerdicts.set(range, verdict);
  }
  return verdict;
}

function checkVersions(name: string, pkg: PackageJson, file: string): void {
  const apiVersion = pkg.toolshed?.apiVersion;
  if (apiVersion === undefined) {
    throw new PluginError(
      'PLUGIN_INVALID',
      `${name}: package.json has no "toolshed": { "apiVersion": ${PLUGIN_API_VERSION} } field, so it is not a ` +
        `toolshed plugin`,
      {
        plugin: name,
        file,
        pointer: '/toolshed/apiVersion',
      },
    );
  }
  if (apiVersion !== PLUGIN_API_VERSION) {
    throw new PluginError(
      'PLUGIN_API_MISMATCH',
      `${name} wants plugin API ${JSON.stringify(apiVersion)}, but toolshed ${TOOLSHED_VERSION} provides ` +
        `plugin API ${PLUGIN_API_VERSION}`,
      {
        plugin: name,
        wanted: apiVersion,
        actual: PLUGIN_API_VERSION,
      },
    );
  }
  const range = pkg.peerDependencies?.toolshed;
  if (range !== undefined) {
    const verdict = rangeVerdict(range);
    if (verdict === 'invalid') {
      throw new PluginError(
        'PLUGIN_INVALID',
        `${name}: peerDependencies.toolshed ${JSON.stringify(range)} is not a semver range`,
        { plugin: name, file, pointer: '/peerDependencies/toolshed' },
      );
    }
    if (verdict === 'unmet') {
      throw new PluginError(
        'PLUGIN_API_MISMATCH',
        `${name} wants toolshed ${range}, but this is toolshed ${TOOLSHED_VERSION}`,
        { plugin: name, wanted: range, actual: TOOLSHED_VERSION },
      );
    }
  }
}

/**
 * An untrusted plugin's dependency folders, transitively, each checked (a
 * valid package name, inside the node_modules it was found in or a granted
 * read path); a plugin with a dependency that fails is PLUGIN_INVALID.
 * Trusted plugins run in the thread tier, where these are not read roots.
 */
function readableDependencies(name: string, dir: string, options: SourceOptions): string[] {
  if ((options.trust ?? (options.builtin ? 'trusted' : 'untrusted')) !== 'untrusted') return [];
  const granted = resolveGrantPaths(options.grant?.fsRead ?? [], options.configDir ?? dir);
  const result = dependencyReadRoots(dir, granted);
  if (result.ok) return result.roots;
  const { dependency, declaredIn, reason } = result.refusal;
  throw new PluginError(
    'PLUGIN_INVALID',
    `${name}: dependency ${JSON.stringify(dependency)} (declared in ${declaredIn}) cannot be read in the ` +
      `untrusted tier: ${reason}`,
    { plugin: name, dependency, file: declaredIn },
  );
}

interface SourceOptions {
  specifier: string;
  builtin: boolean;
  trust?: 'trusted' | 'untrusted';
  grant?: PluginSource['grant'];
  options?: PluginSource['options'];
  /** where the config's relative paths (grants) resolve from */
  configDir?: string;
}

/** What a config entry sets on its plugin besides where it is. */
function entrySettings(entry: PluginEntry): Pick<SourceOptions, 'trust' | 'grant' | 'options'> {
  if (typeof entry !== 'object') return {};
  return {
    ...(entry.trust ? { trust: entry.trust } : {}),
    ...(entry.grant ? { grant: entry.grant } : {}),
    ...(entry.options ? { options: entry.options } : {}),
  };
}

/** A module file given by path: a package only if its own folder's package.json declares `toolshed`. */
function sourceFromFile(file: string, options: SourceOptions): PluginSource {
  const dir = path.dirname(file);
  const pkg = readPackageJson(dir);
  return sourceFromDir(dir, pkg?.toolshed === undefined ? undefined : pkg, file, options);
}

/** A package folder: its package.json read once, its entry resolved from it. */
function sourceFromPackageDir(dir: string, options: SourceOptions): PluginSource {
  const pkg = readPackageJson(dir);
  return sourceFromDir(dir, pkg, resolveDirEntry(dir, pkg), options);
}

/** The source of the plugin in `dir` with `entry`; no `pkg` means a bare module without package metadata. */
function sourceFromDir(dir: string, pkg: PackageJson | undefined, entry: string, options: SourceOptions): PluginSource {
  const realDir = realpathSync(dir);
  const realEntry = realpathSync(entry);
  if (!pkg) {
    // A bare module given by path: a local toolset without package metadata.
    const base = path.basename(entry).replace(/\.[cm]?[jt]s$/, '');
    const name = base === 'index' ? path.basename(path.dirname(realEntry)) : base;
    return {
      name,
      specifier: options.specifier,
      dir: path.dirname(realEntry),
      entry: realEntry,
      version: '0.0.0',
      builtin: options.builtin,
      trust: options.trust ?? 'untrusted',
      ...(options.grant ? { grant: options.grant } : {}),
      ...(options.options ? { options: options.options } : {}),
      dependencyDirs: [],
    };
  }
  const name = pkg.name ?? path.basename(dir);
  checkVersions(name, pkg, path.join(dir, 'package.json'));
  return {
    name,
    specifier: options.specifier,
    dir: realDir,
    entry: realEntry,
    version: pkg.version ?? '0.0.0',
    builtin: options.builtin,
    trust: options.trust ?? (options.builtin ? 'trusted' : 'untrusted'),
    ...(options.grant ? { grant: options.grant } : {}),
    ...(options.options ? { options: options.options } : {}),
    dependencyDirs: readableDependencies(name, realDir, options),
    ...(options.builtin && pkg.toolshed?.firstParty ? { firstParty: pkg.toolshed.firstParty } : {}),
  };
}

/** Resolves one config entry from `configDir`; throws a PluginError (NOT_FOUND, INVALID, API_MISMATCH). */
export function resolvePlugin(entry: PluginEntry, configDir: string): PluginSource {
  const spec = typeof entry === 'string' ? entry : entry.package;
  const options: SourceOptions = { specifier: spec, builtin: false, configDir, ...entrySettings(entry) };
  if (isPath(spec)) {
    const target = spec.startsWith('file:') ? fileURLToPath(spec) : path.resolve(configDir, spec);
    if (!existsSync(target)) {
      throw new PluginError(
        'PLUGIN_NOT_FOUND',
        `plugin path ${spec} does not exist (resolved from ${configDir} to ${target})`,
        { plugin: spec, path: target },
      );
    }
    if (statSync(target).isDirectory()) return sourceFromPackageDir(target, options);
    return sourceFromFile(target, options);
  }
  let entryFile: string;
  try {
    entryFile = fileURLToPath(resolveModule(spec, pathToFileURL(path.join(configDir, 'noop.js')).href));
  } catch (error) {
    throw notInstalled(spec, configDir, error);
  }
  const dir = packageDirOf(entryFile);
  if (!dir) throw new PluginError('PLUGIN_INVALID', `plugin ${spec} has no package.json`, { plugin: spec });
  return sourceFromDir(dir, readPackageJson(dir), entryFile, options);
}

/**
 * PLUGIN_NOT_FOUND for a package name: the installed package it probably meant (a misspelling
 * would otherwise be told to `npm install` the misspelling), else the install command.
 */
function notInstalled(spec: string, configDir: string, cause: unknown): PluginError {
  const meant = nearestName(spec, installedPackages(configDir));
  const where = `plugin package ${spec} is not installed where the config is (${configDir}).`;
  if (meant) {
    return new PluginError(
      'PLUGIN_NOT_FOUND',
      `${where} Did you mean '${meant}' (installed)? Then correct the name in the config; else run: npm ` +
        `install ${spec}`,
      { plugin: spec, from: configDir, didYouMean: meant, fix: `use '${meant}'` },
      { cause },
    );
  }
  return new PluginError(
    'PLUGIN_NOT_FOUND',
    `${where} Run: npm install ${spec}`,
    { plugin: spec, from: configDir, fix: `npm install ${spec}` },
    { cause },
  );
}

/**
 * Names of the packages Node would find from `dir`: every node_modules folder from it up to the root (`@scope/name`
 * included).
 */
function installedPackages(dir: string): Set<string> {
  const names = new Set<string>();
  const list = (folder: string) => {
    try {
      return readdirSync(folder, { withFileTypes: true }).filter(
        (d) => (d.isDirectory() || d.isSymbolicLink()) && !d.name.startsWith('.'),
      );
    } catch {
      return [];
    }
  };
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const modules = path.join(current, 'node_modules');
    for (const entry of list(modules)) {
      if (!entry.name.startsWith('@')) names.add(entry.name);
      else for (const scoped of list(path.join(modules, entry.name))) names.add(`${entry.name}/${scoped.name}`);
    }
    if (path.dirname(current) === current) return names;
  }
}

/** The first-party plugin folders: every folder under plugins/ whose package.json has a `toolshed` field, by name. */
export function builtinPluginDirs(): string[] {
  if (!existsSync(BUILTIN_DIR)) return [];
  return readdirSync(BUILTIN_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => path.join(BUILTIN_DIR, d.name))
    .filter((dir) => {
      try {
        return readPackageJson(dir)?.toolshed !== undefined;
      } catch {
        return true; // a broken package.json is reported by resolveBuiltin
      }
    })
    .sort();
}

/**
 * Resolves one first-party plugin folder; throws a PluginError like resolvePlugin.
 * `entry` is a config entry naming the builtin's package: its trust, grant and options apply.
 */
export function resolveBuiltin(dir: string, entry?: PluginEntry, configDir?: string): PluginSource {
  return sourceFromPackageDir(dir, {
    specifier: `builtin:${path.basename(dir)}`,
    builtin: true,
    ...(configDir ? { configDir } : {}),
    ...(entry ? entrySettings(entry) : {}),
  });
}

/** The package name of a first-party plugin folder (undefined when its package.json cannot be read). */
export function builtinPluginName(dir: string): string | undefined {
  try {
    return readPackageJson(dir)?.name;
  } catch {
    return undefined;
  }
}
