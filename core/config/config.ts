/**
 * Finding, loading and validating the config. cosmiconfig searches the
 * project (module name `toolshed`); the result is checked against
 * config.schema.json and then filled with defaults.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../../boundary/errors.js';
import { loadJsFresh, locatingErrors } from './config-loaders.js';
import { formatProblems, problems } from '../schema/schema.js';
import { validate as validateStandalone } from './config-validator.js';
import { chooseCacheDir } from './cache-dir.js';
import { auditTarget } from './audit-target.js';
import { writableRoots } from './writable-roots.js';
import { resolveResources, type ResourceLimits } from '../../boundary/launch/resources.js';
import { DEFAULT_CODE_LIMITS } from '../../boundary/code-limits.js';
import type {
  Embedder,
  PluginEntry,
  ResolvedConfig,
  ResolvedSearch,
  SearchConfig,
  ToolshedConfig,
} from './public-types.js';

export type {
  BreakerLimits,
  DefinitionChanges,
  Embedder,
  HostLimits,
  McpListingLimits,
  McpOAuthSettings,
  McpProtocolChoice,
  McpServerEntry,
  PluginEntry,
  ResolvedConfig,
  ResolvedSearch,
  SearchConfig,
  ToolshedConfig,
} from './public-types.js';

/**
 * The default of `serve.maxMessageBytes`: the MCP SDK's stdio read-buffer size, past which its transport closes itself.
 */
const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** Whether a plugin entry (or a hooks specifier) is a path rather than a package name. */
export function isPath(specifier: string): boolean {
  return specifier.startsWith('.') || path.isAbsolute(specifier) || specifier.startsWith('file:');
}

/** Every place cosmiconfig looks, in order (docs/configuration.md lists them). */
export const SEARCH_PLACES = [
  'package.json',
  '.toolshedrc',
  '.toolshedrc.json',
  '.toolshedrc.yaml',
  '.toolshedrc.yml',
  '.toolshedrc.js',
  '.toolshedrc.mjs',
  '.toolshedrc.cjs',
  '.toolshedrc.ts',
  'toolshed.config.js',
  'toolshed.config.mjs',
  'toolshed.config.cjs',
  'toolshed.config.ts',
] as const;

function validator() {
  // Generated at build time (scripts/build-config-validator.mjs) so startup runs no schema compiler.
  return validateStandalone;
}

/** Checks `value` against config.schema.json; throws CONFIG_INVALID naming the file, pointer and expectation. */
export function validateConfigObject(value: unknown, file: string | undefined): ToolshedConfig {
  const validate = validator();
  if (validate(value)) return checkFunctions(value as ToolshedConfig, file);
  const list = problems(validate.errors);
  const where = file ?? 'config object';
  const first = list[0];
  throw new ConfigError(`${where}: ${formatProblems(list)}`, {
    ...(file ? { file } : {}),
    ...(first ? { pointer: first.pointer, expected: first.message } : {}),
    problems: list,
  } as never);
}

/**
 * The settings that are functions, which JSON Schema cannot check: `search.embedder.embed`.
 * A JSON or YAML config cannot hold one, so the message says where one can go.
 */
function checkFunctions(config: ToolshedConfig, file: string | undefined): ToolshedConfig {
  const embed = config.search?.embedder?.embed;
  if (embed === undefined || typeof embed === 'function') return config;
  const pointer = '/search/embedder/embed';
  throw new ConfigError(
    `${file ?? 'config object'}: ${pointer} must be a function (texts, { signal }) => Promise<number[][]>, not ` +
      `${embed === null ? 'null' : typeof embed}; a JSON or YAML config cannot hold one: set search.embedder in ` +
      `a .js or .ts config, or pass createToolHost({ search: { embedder } })`,
    { ...(file ? { file } : {}), pointer, expected: 'a function' },
  );
}

/**
 * Called with each file cosmiconfig reads (the config and its `$import`s), before its loader runs: may throw to stop
 * the load.
 */
export type OnConfigRead = (filepath: string, content: string) => void;

async function explorer(
  sources: Map<string, string>,
  onRead: OnConfigRead | undefined,
  places: readonly string[] = SEARCH_PLACES,
) {
  // Loaded on use: a host given a config object never needs it.
  const { cosmiconfig, defaultLoaders } = await import('cosmiconfig');
  type Loader = (filepath: string, content: string) => unknown;
  // Every read is seen first, so a JS config can be refused before its code is imported.
  const seen =
    (loader: Loader): Loader =>
    (filepath, content) => {
      sources.set(filepath, content);
      onRead?.(filepath, content);
      return loader(filepath, content);
    };
  const js = seen(locatingErrors(loadJsFresh));
  return cosmiconfig('toolshed', {
    searchStrategy: 'project',
    searchPlaces: [...places],
    cache: false,
    loaders: {
      '.js': js,
      '.mjs': js,
      '.cjs': js,
      '.ts': seen(locatingErrors(defaultLoaders['.ts'])),
      '.json': seen(defaultLoaders['.json']),
      '.yaml': seen(defaultLoaders['.yaml']),
      '.yml': seen(defaultLoaders['.yml']),
      noExt: seen(defaultLoaders.noExt),
    },
  });
}

/** A loaded config file (or none) before defaults. */
export interface LoadedConfig {
  file: string | undefined;
  config: ToolshedConfig;
  /** every file cosmiconfig read for it (the config, then its `$import`s), by path, as read */
  sources: Map<string, string>;
}

/**
 * Loads `file` explicitly (`--config`), or searches from `cwd`; no file at all gives `{}` (the embedded default).
 * `onRead` sees each file before it is loaded (config trust refuses a changed JS config there, before it runs).
 */
export async function loadConfig(options: {
  cwd: string;
  file?: string;
  onRead?: OnConfigRead;
}): Promise<LoadedConfig> {
  const sources = new Map<string, string>();
  const search = await explorer(sources, options.onRead);
  let result: { config: unknown; filepath: string; isEmpty?: boolean } | null;
  try {
    if (options.file) {
      const file = path.resolve(options.cwd, options.file);
      await assertRegularFile(file, options.file);
      result = await search.load(file);
    } else {
      result = await search.search(options.cwd);
      // In a plugin's own folder its package.json is metadata: look on for a config file (a dev config that loads the
      // plugin).
      if (result && isPluginMetadata(result)) {
        sources.clear();
        result = await (
          await explorer(
            sources,
            options.onRead,
            SEARCH_PLACES.filter((p) => p !== 'package.json'),
          )
        ).search(options.cwd);
      }
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const err = error as NodeJS.ErrnoException;
    if (options.file && err.code === 'ENOENT') {
      throw new ConfigError(`config file not found: ${options.file}`, { file: options.file }, { cause: error });
    }
    throw new ConfigError(
      `could not load the config${options.file ? ` ${options.file}` : ''}: ${err.message}`,
      options.file ? { file: options.file } : {},
      { cause: error },
    );
  }
  if (!result || isPluginMetadata(result)) return { file: undefined, config: {}, sources: new Map() };
  const config = result.isEmpty || result.config == null ? {} : result.config;
  return { file: result.filepath, config: validateConfigObject(config, result.filepath), sources };
}

/**
 * Refuses a config path that is not a regular file (after following links) before
 * anything opens it: reading a FIFO or a character device would block forever.
 */
async function assertRegularFile(file: string, shown: string): Promise<void> {
  const info = await stat(file);
  if (info.isFile()) return;
  const kind = info.isDirectory()
    ? 'a directory'
    : info.isFIFO()
      ? 'a FIFO (named pipe)'
      : info.isSocket()
        ? 'a socket'
        : info.isCharacterDevice() || info.isBlockDevice()
          ? 'a device'
          : 'not a regular file';
  throw new ConfigError(`the config ${shown} is ${kind}; --config must name a regular file`, { file: shown });
}

/**
 * A plugin package's own package.json carries `toolshed: { apiVersion }`,
 * which is plugin metadata and not a host config: running toolshed inside a
 * plugin's folder must not read it as one.
 */
function isPluginMetadata(result: { config: unknown; filepath: string }): boolean {
  return (
    path.basename(result.filepath) === 'package.json' &&
    typeof result.config === 'object' &&
    result.config !== null &&
    'apiVersion' in result.config
  );
}

/**
 * Where the workspace root comes from, strongest first: an explicit root (`--root`, the embedder), the config's `root`,
 * then `fallback` (the host's cwd).
 */
export interface RootChoice {
  explicit?: string;
  fallback: string;
}

/** Fills defaults; relative paths in the config resolve from `dir`. */
export function resolveConfig(
  config: ToolshedConfig,
  file: string | undefined,
  dir: string,
  cores: number,
  root: RootChoice = { fallback: dir },
): ResolvedConfig {
  const workspace =
    root.explicit !== undefined
      ? path.resolve(root.explicit)
      : config.root !== undefined
        ? path.resolve(dir, config.root)
        : path.resolve(root.fallback);
  const plugins = config.plugins ?? [];
  const mcpServers = config.mcpServers ?? {};
  const writable = writableRoots({ root: workspace, dir, plugins, mcpServers });
  return {
    file,
    dir,
    root: workspace,
    rootFrom: root.explicit !== undefined ? 'option' : config.root !== undefined ? 'config' : 'cwd',
    plugins,
    builtins: config.builtins ?? true,
    toolsets: resolveToolsets(config.toolsets),
    enable: config.enable ?? ['all'],
    disable: config.disable ?? [],
    prefer: config.prefer ?? {},
    checks: { ttlMs: 30_000, graceMs: 60_000, timeoutMs: 5_000, ...config.checks },
    limits: resolveLimits(config.limits, cores),
    codeExecution: {
      tools: config.codeExecution?.tools,
      ...DEFAULT_CODE_LIMITS,
      ...stripUndefined(config.codeExecution),
    },
    cache: resolveCache(config.cache, dir, writable),
    serve: resolveServe(config.serve),
    access: config.access ?? [],
    ...(config.audit
      ? { audit: { arguments: false, ...config.audit, to: auditTarget(config.audit.to, dir, writable, file) } }
      : {}),
    state: { store: 'memory', prefix: 'toolshed:', sessionTtlMs: 3_600_000, ...stripUndefined(config.state) },
    hooks: config.hooks ?? [],
    protect: config.protect ?? [],
    approve: resolveApprove(config.approve),
    defer: config.defer ?? [],
    search: resolveSearch(config.search),
    mcpServers,
    resources: resolveResources(config.resources),
    definitionChanges: config.definitionChanges ?? 'hold',
  };
}

/** The config's own toolsets, each with its lists filled. */
function resolveToolsets(specs: ToolshedConfig['toolsets'] = {}): ResolvedConfig['toolsets'] {
  const toolsets: ResolvedConfig['toolsets'] = {};
  for (const [name, spec] of Object.entries(specs)) {
    toolsets[name] = {
      ...(spec.description ? { description: spec.description } : {}),
      includes: spec.includes ?? [],
      tools: spec.tools ?? [],
    };
  }
  return toolsets;
}

/** The host's limits, each defaulted; threads default to the cores, between 1 and 4. */
function resolveLimits(limits: ToolshedConfig['limits'], cores: number): ResolvedConfig['limits'] {
  return {
    timeoutMs: 60_000,
    maxResultChars: 100_000,
    maxArgsBytes: 4 * 1024 * 1024,
    memoryMb: 256,
    maxQueue: 1024,
    maxQueueTotal: 8192,
    threads: Math.max(1, Math.min(4, cores)),
    idleTimeoutMs: 30_000,
    loadTimeoutMs: 5_000,
    maxCallDepth: 8,
    ...limits,
    breaker: { failures: 5, windowMs: 60_000, coolDownMs: 30_000, shared: false, ...limits?.breaker },
  };
}

/** The cache folder as configured (relative to `dir`) or chosen outside the writable roots, and whether it is on. */
function resolveCache(
  cache: ToolshedConfig['cache'],
  dir: string,
  writable: readonly string[],
): ResolvedConfig['cache'] {
  const chosen = chooseCacheDir(cache?.dir !== undefined ? path.resolve(dir, cache.dir) : undefined, writable);
  return {
    dir: chosen.dir,
    enabled: chosen.dir !== undefined && (cache?.enabled ?? true),
    ...(chosen.refused ? { refused: chosen.refused } : {}),
  };
}

/** `toolshed serve`'s settings, each defaulted. */
function resolveServe(serve: ToolshedConfig['serve']): ResolvedConfig['serve'] {
  return {
    maxMessageBytes: serve?.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    sessionIdleMs: serve?.sessionIdleMs ?? 600_000,
    maxSessions: serve?.maxSessions ?? 100,
    maxSessionsPerClient: serve?.maxSessionsPerClient ?? 25,
    ...(serve?.ops !== undefined ? { ops: serve.ops } : {}),
    publicUrl: [serve?.publicUrl ?? []].flat(),
    trustedProxies: serve?.trustedProxies ?? [],
    ...(serve?.auth ? { auth: serve.auth } : {}),
  };
}

function resolveSearch(search: SearchConfig = {}): ResolvedSearch {
  const native = search.native === true ? 'bm25' : (search.native ?? false);
  return {
    maxResults: search.maxResults ?? 10,
    alwaysLoaded: search.alwaysLoaded ?? [],
    native,
    budgetTokens: search.budgetTokens ?? 8000,
    sessions: { max: 1000, ttlMs: 3_600_000, maxTools: 64, ...stripUndefined(search.sessions) },
    exclude: search.exclude ?? [],
    ...(search.embedder ? { embedder: resolveEmbedder(search.embedder) } : {}),
  };
}

/** An embedder with its defaults (docs/tool-search.md#embeddings-optional). */
export function resolveEmbedder(embedder: Embedder): Required<Embedder> {
  // Called as a method: an embedder may be a class instance whose embed reads `this`.
  return {
    model: embedder.model,
    embed: (texts, options) => embedder.embed(texts, options),
    batchSize: embedder.batchSize ?? 32,
    timeoutMs: embedder.timeoutMs ?? 5000,
  };
}

/**
 * `approve` (or an access rule's) in its one shape: a list of names means `{ tools: list }`; `timeoutMs` defaults to
 * `defaultTimeoutMs`.
 */
export function resolveApprove(
  approve: ToolshedConfig['approve'],
  defaultTimeoutMs = 120_000,
): ResolvedConfig['approve'] {
  const spec = Array.isArray(approve) ? { tools: approve } : (approve ?? {});
  return {
    tools: spec.tools ?? [],
    destructive: spec.destructive ?? false,
    timeoutMs: spec.timeoutMs ?? defaultTimeoutMs,
  };
}

/** A copy of `value` without its undefined properties, so spreading it keeps defaults. */
export function stripUndefined<T extends object>(value: T | undefined): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(value ?? {})) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/**
 * The resource limits of the plugin `source` (config entry by specifier or name): its entry's `resources` over the
 * top-level ones.
 */
export function pluginResources(
  config: Pick<ResolvedConfig, 'plugins' | 'resources'>,
  source: { specifier: string; name: string },
): ResourceLimits {
  const entry = config.plugins.find(
    (e): e is Exclude<PluginEntry, string> =>
      typeof e === 'object' && (e.package === source.specifier || e.package === source.name),
  );
  return resolveResources(entry?.resources, config.resources);
}
