/**
 * Loading every plugin into a `LoadedPlugin` or a `FailedPlugin`. One bad
 * plugin never stops the others: each failure is kept with its code, and the
 * startup report shows status and load time per plugin.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { PluginError, ToolshedError } from '../../boundary/errors.js';
import { builtinPluginDirs, builtinPluginName, resolveBuiltin, resolvePlugin } from './discovery.js';
import { ManifestCache, manifestKey } from './manifest-cache.js';
import { normalizeManifest } from './manifest.js';
import { knownContents } from './known-contents.js';
import { effectivePermissions, pluginScope, sandboxGrants, type PluginScope } from './permissions.js';
import { protectedPaths } from './protect.js';
import { pluginResources, type PluginEntry, type ResolvedConfig } from '../config/config.js';
import type { ProtectedPath } from '../../boundary/plugin-api.js';
import type {
  FailedPlugin,
  LoadedPlugin,
  ManifestSource,
  PluginLoadResult,
  PluginManifest,
  PluginSource,
} from './types.js';
import type { Runner } from '../runners/runner.js';
import type { SandboxGrants } from '../runners/process/process-runner.js';
import { describeRunnerFailure, type RunOutcome } from '../../boundary/runner-failure.js';
import type { RawManifest } from '../../boundary/protocol.js';
import type { Pins } from '../../boundary/pins.js';

/** Everything a plugin's runner is made from, decided as the plugin loads. */
export interface RunnerPlan {
  source: PluginSource;
  /** its env grant: the whole environment its code sees */
  env: Record<string, string>;
  /** its ctx.roots and ctx.options */
  scope: PluginScope;
  /** its files as it loaded (trusted plugins) */
  pins?: Pins;
  /** its effective fsRead, fsWrite and network as absolute paths: what an untrusted plugin's sandbox is started with */
  grants: SandboxGrants;
}

/** What loading needs from the host. */
interface LoadOptions {
  config: ResolvedConfig;
  /** the host's environment (the source of granted variables) */
  env: Record<string, string | undefined>;
  /** makes the runner a plugin's handlers and checks run in */
  createRunner(plan: RunnerPlan): Runner;
  /** extracts a manifest in the plugin's own tier, waiting its turn; a `timeout` failure is PLUGIN_LOAD_TIMEOUT */
  extract(source: PluginSource, pins?: Pins): Promise<RunOutcome<RawManifest>>;
  /** pins a plugin's files as it loads (before its manifest is read), or undefined when it is not pinned */
  pin?(source: PluginSource): Pins | undefined;
  /** a problem that does not stop loading (the manifest cache refused its folder) */
  warn?(message: string): void;
  /** the entries, already resolved by {@link resolvePluginEntries} (resolved here when absent) */
  resolved?: ResolvedEntry[];
  /** the protected paths every plugin gets in ctx.roots.protect (computed from the entries when absent) */
  protect?: readonly ProtectedPath[];
}

interface Pending {
  specifier: string;
  resolve(): PluginSource;
}

/** A plugin entry after resolution: its source, or why it did not resolve. */
export type ResolvedEntry = { pending: Pending; source: PluginSource } | { pending: Pending; error: unknown };
type Resolved = ResolvedEntry;

/**
 * The plugins to load: the builtins, then the config's entries. An entry that names a
 * builtin's package (`{ package: '@toolshed/terminal', options: {…} }`) configures that
 * builtin (trust, grant, options) instead of loading a second copy; with `builtins: false`
 * it loads just that builtin.
 */
function pendingEntries(config: ResolvedConfig): Pending[] {
  const builtins = new Map(builtinPluginDirs().map((dir) => [builtinPluginName(dir) ?? dir, dir]));
  const named = new Map<string, PluginEntry>();
  for (const entry of config.plugins) {
    const spec = typeof entry === 'string' ? entry : entry.package;
    if (builtins.has(spec)) named.set(spec, entry);
  }
  const builtin = (dir: string, entry?: PluginEntry): Pending => ({
    specifier: `builtin:${path.basename(dir)}`,
    resolve: () => resolveBuiltin(dir, entry, config.dir),
  });
  const list: Pending[] = [];
  if (config.builtins) for (const [name, dir] of builtins) list.push(builtin(dir, named.get(name)));
  for (const entry of config.plugins) {
    const specifier = typeof entry === 'string' ? entry : entry.package;
    const dir = builtins.get(specifier);
    if (dir === undefined) list.push({ specifier, resolve: () => resolvePlugin(entry, config.dir) });
    else if (!config.builtins) list.push(builtin(dir, entry));
  }
  return list;
}

function asToolshedError(error: unknown, plugin: string): ToolshedError {
  if (error instanceof ToolshedError) return error;
  return new PluginError(
    'PLUGIN_INVALID',
    `${plugin}: ${(error as Error)?.message ?? String(error)}`,
    { plugin },
    { cause: error },
  );
}

/**
 * A cached raw manifest validated as a freshly extracted one is, or undefined when it fails. Its
 * parameter schemas are not compiled again (about 3 ms each, a second for 300 tools): they were
 * when it was extracted, its MAC says it is that manifest, and dispatch compiles them on first use.
 */
function validCached(raw: RawManifest, source: PluginSource): PluginManifest | undefined {
  try {
    return normalizeManifest(raw, source, { compileParameters: false });
  } catch {
    return undefined;
  }
}

async function obtainManifest(
  source: PluginSource,
  options: LoadOptions,
  cache: ManifestCache | undefined,
  pins: Pins | undefined,
): Promise<{ manifest: PluginManifest; from: ManifestSource }> {
  const key = cache ? manifestKey(source, pins) : '';
  const cached = cache?.read(source, key);
  // Authentic is not the same as valid: the cached manifest passes the checks a fresh one does
  // (a bad one is re-extracted), so nothing in it counts for having been cached.
  const revalidated = cached && validCached(cached, source);
  if (revalidated) return { manifest: revalidated, from: 'cache' };
  const outcome = await options.extract(source, pins);
  if (!outcome.ok) {
    if ('failure' in outcome) {
      if (outcome.failure.kind === 'timeout') {
        throw new PluginError(
          'PLUGIN_LOAD_TIMEOUT',
          `${source.name}: importing the plugin and extracting its manifest took longer than ` +
            `limits.loadTimeoutMs (${outcome.failure.timeoutMs} ms); it was stopped`,
          {
            plugin: source.name,
            timeoutMs: outcome.failure.timeoutMs,
          },
        );
      }
      throw new PluginError(
        'PLUGIN_IMPORT_FAILED',
        `${source.name}: manifest extraction ${describeRunnerFailure(outcome.failure)}`,
        { plugin: source.name },
      );
    }
    const code =
      outcome.error.code === 'PLUGIN_IMPORT_FAILED' || outcome.error.code === 'PLUGIN_CHANGED'
        ? outcome.error.code
        : 'PLUGIN_INVALID';
    throw new PluginError(code, `${source.name}: ${outcome.error.message}`, {
      plugin: source.name,
      cause: outcome.error,
    });
  }
  const manifest = normalizeManifest(outcome.value, source);
  cache?.write(source, key, outcome.value);
  return { manifest, from: 'extracted' };
}

function pickEnv(names: string[], env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * A first-party plugin that runs commands in the shell sandbox (the terminal) starts each as a
 * sandboxed child with resource limits from its trusted worker: it reads them from
 * ctx.options.resources, which is its `options.resources` over its entry's `resources` over
 * the top-level `resources` (docs/security.md, Resource limits).
 */
function withCommandLimits(source: PluginSource, scope: PluginScope, config: ResolvedConfig): PluginScope {
  if (source.firstParty?.commands !== 'shell-sandbox') return scope;
  const own = scope.options.resources;
  const resources = { ...pluginResources(config, source), ...(own !== null && typeof own === 'object' ? own : {}) };
  return { ...scope, options: Object.freeze({ ...scope.options, resources }) };
}

async function loadOne(
  resolved: Resolved,
  options: LoadOptions,
  cache: ManifestCache | undefined,
  protect: readonly ProtectedPath[],
): Promise<PluginLoadResult> {
  const started = performance.now();
  const { pending } = resolved;
  let name = pending.specifier;
  try {
    if ('error' in resolved) throw resolved.error;
    const { source } = resolved;
    name = source.name;
    const pins = options.pin?.(source);
    const { manifest, from } = await obtainManifest(source, options, cache, pins);
    const permissions = effectivePermissions(source, manifest, options.config.dir);
    const grants = sandboxGrants(permissions.effective, options.config.dir);
    // A plugin's workers receive exactly its effective env grant.
    const envNames = permissions.effective.env;
    const scope = withCommandLimits(
      source,
      pluginScope(source, permissions, options.config, grants, protect),
      options.config,
    );
    const runner = options.createRunner({
      source,
      env: pickEnv(envNames, options.env),
      scope,
      ...(pins ? { pins } : {}),
      grants,
    });
    const loaded: LoadedPlugin = {
      status: 'loaded',
      source,
      manifest,
      manifestSource: from,
      loadMs: performance.now() - started,
      runner,
      env: envNames,
      permissions,
      scope,
    };
    return loaded;
  } catch (error) {
    const failed: FailedPlugin = {
      status: 'failed',
      specifier: pending.specifier,
      name,
      error: asToolshedError(error, name),
      loadMs: performance.now() - started,
      known: knownContents(name, cache),
    };
    return failed;
  }
}

function resolveEntry(pending: Pending): Resolved {
  try {
    return { pending, source: pending.resolve() };
  } catch (error) {
    return { pending, error };
  }
}

/** Resolves every plugin entry (builtins, then the config's), keeping each failure for loading to report. */
export function resolvePluginEntries(config: ResolvedConfig): ResolvedEntry[] {
  return pendingEntries(config).map(resolveEntry);
}

/** The sources of the entries that resolved. */
export function resolvedSources(entries: readonly ResolvedEntry[]): PluginSource[] {
  return entries.flatMap((r) => ('source' in r ? [r.source] : []));
}

/**
 * Loads builtins then config plugins, in config order; never throws for a single plugin.
 * Every entry is resolved first, so the protected paths (which hold every plugin's folder)
 * are complete before any plugin gets its ctx.roots.
 */
export async function loadPlugins(options: LoadOptions): Promise<PluginLoadResult[]> {
  const cacheDir = options.config.cache.enabled ? options.config.cache.dir : undefined;
  const cache = cacheDir !== undefined ? new ManifestCache(cacheDir) : undefined;
  const resolved = options.resolved ?? resolvePluginEntries(options.config);
  const protect = options.protect ?? protectedPaths(options.config, resolvedSources(resolved));
  const results = await Promise.all(resolved.map((r) => loadOne(r, options, cache, protect)));
  if (options.config.cache.refused) options.warn?.(options.config.cache.refused);
  if (cache?.refusal) options.warn?.(cache.refusal);
  return results;
}

/** The file URL a worker imports a plugin by. */
export function entryUrl(source: PluginSource): string {
  return pathToFileURL(source.entry).href;
}
