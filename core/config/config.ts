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
import { writableRoots } from './writable-roots.js';
import type { CodeLimits, Grant, Permissions, ToolLimits } from '../../boundary/plugin.js';
import { resolveResources, type ResourceLimits, type ResourceSettings } from '../../boundary/launch/resources.js';
import { DEFAULT_CODE_LIMITS } from '../../boundary/code-limits.js';

/** `limits.breaker`: how many crashes or timeouts in what window open a circuit, and for how long. */
export interface BreakerLimits {
  /** crashes or timeouts within `windowMs` that open the circuit; 0 turns the breaker off */
  failures: number;
  windowMs: number;
  coolDownMs: number;
}

/** The default of `serve.maxMessageBytes`: the MCP SDK's stdio read-buffer size, past which its transport closes itself. */
const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** A plugin entry as written in the config. */
export type PluginEntry = string | { package: string; trust?: 'trusted' | 'untrusted'; grant?: Grant; pool?: 'shared' | 'own'; options?: Record<string, unknown>; resources?: ResourceSettings };

/** Whether a plugin entry (or a hooks specifier) is a path rather than a package name. */
export function isPath(specifier: string): boolean {
  return specifier.startsWith('.') || path.isAbsolute(specifier) || specifier.startsWith('file:');
}

/**
 * An MCP server entry: the Claude Desktop / Cursor shape (`command`, `args`,
 * `env`, `cwd` for stdio; `url`, `headers` for Streamable HTTP) plus
 * toolshed's own keys (docs/mcp-servers.md).
 */
export interface McpServerEntry {
  type?: 'stdio' | 'http' | 'streamable-http';
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  trust?: 'trusted' | 'untrusted';
  /** what the server may use; folders by purpose are for plugins only */
  grant?: Omit<Permissions, 'folders'>;
  toolset?: string;
  prefix?: string | false;
  timeoutMs?: number;
  enabled?: boolean;
  sandbox?: boolean;
  /** limits on its processes, memory and file size (stdio, untrusted) over the top-level `resources` */
  resources?: ResourceSettings;
  /** limits on what the server lists (docs/mcp-servers.md) */
  listing?: McpListingLimits;
  /** what a changed tool definition does (default: the config's top-level `definitionChanges`) */
  definitionChanges?: DefinitionChanges;
}

/** `mcpServers.<name>.listing`: how much of a server's `tools/list` is taken, and how long it may take. */
export interface McpListingLimits {
  /** tools kept (the first N); default 1000 */
  tools?: number;
  /** `tools/list` pages read; default 50 */
  pages?: number;
  /** the whole listing's deadline, and the longest start-up waits for the server; default limits.loadTimeoutMs */
  timeoutMs?: number;
  /** a description longer than this is cut and marked; default 2000 */
  descriptionChars?: number;
}

/** What a changed MCP tool definition does: hidden until accepted, served with a warning, or pinned again silently. */
export type DefinitionChanges = 'hold' | 'warn' | 'accept';

/** Host-wide limits; a tool's own `limits` may lower its timeout and result cap. */
export interface HostLimits extends Required<ToolLimits> {
  memoryMb: number;
  maxQueue: number;
  /** calls that may wait for a worker in all, across plugins */
  maxQueueTotal: number;
  threads: number;
  idleTimeoutMs: number;
  /** how long importing a plugin and extracting its manifest may take */
  loadTimeoutMs: number;
  /** the longest chain of nested ctx.callTool calls */
  maxCallDepth: number;
  /** crashes or timeouts in a window that take a tool or plugin out of service for a cool-down */
  breaker: BreakerLimits;
}

/** The config object users write (see config.schema.json). */
export interface ToolshedConfig {
  $schema?: string;
  plugins?: PluginEntry[];
  builtins?: boolean;
  toolsets?: Record<string, { description?: string; includes?: string[]; tools?: string[] }>;
  enable?: string[];
  disable?: string[];
  prefer?: Record<string, string>;
  checks?: { ttlMs?: number; graceMs?: number; timeoutMs?: number };
  limits?: Partial<Omit<HostLimits, 'breaker'>> & { breaker?: Partial<BreakerLimits> };
  codeExecution?: Partial<CodeLimits> & { tools?: string[] };
  cache?: { dir?: string; enabled?: boolean };
  /** the workspace root tools work in (ctx.cwd), relative to the config file */
  root?: string;
  /** paths (relative to the config file) that stay read-only to the model's tools inside writable roots */
  protect?: string[];
  serve?: { maxMessageBytes?: number; sessionIdleMs?: number; maxSessions?: number };
  /** modules whose default export is hooks (`{ beforeCall, afterCall }` or an array), relative to the config file */
  hooks?: string[];
  /** tools whose calls wait for approval: names (tools or toolsets), or `{ destructive, tools, timeoutMs }` */
  approve?: string[] | { tools?: string[]; destructive?: boolean; timeoutMs?: number };
  defer?: string[] | 'auto';
  search?: SearchConfig;
  mcpServers?: Record<string, McpServerEntry>;
  /** default limits of every sandboxed child (untrusted plugin, stdio MCP server, terminal command); docs/security.md */
  resources?: ResourceSettings;
  /** what a changed MCP tool definition does, for every server without its own (default 'hold') */
  definitionChanges?: DefinitionChanges;
}

/** `search`: how deferred tools are found and loaded per session (docs/tool-search.md). */
export interface SearchConfig {
  maxResults?: number;
  alwaysLoaded?: string[];
  native?: boolean | 'bm25' | 'regex';
  budgetTokens?: number;
  sessions?: { max?: number; ttlMs?: number; maxTools?: number };
  /** plugins (package names), MCP servers (`mcp:<name>`), toolsets or tools tool_search never returns; `*` patterns allowed */
  exclude?: string[];
}

/** `search` with every default applied; `native` is the Anthropic variant, or false. */
export interface ResolvedSearch {
  maxResults: number;
  alwaysLoaded: string[];
  native: false | 'bm25' | 'regex';
  budgetTokens: number;
  sessions: { max: number; ttlMs: number; maxTools: number };
  exclude: string[];
}

/** The config with every default applied. */
export interface ResolvedConfig {
  /** the file it came from, or undefined for an object or the embedded default */
  file: string | undefined;
  /** folder plugin names and paths resolve from */
  dir: string;
  /** the workspace root: ctx.cwd of every handler and check, where file and terminal tools work */
  root: string;
  /** where `root` came from: an option (`--root`, an embedder, an MCP client), the config's `root`, or the working directory */
  rootFrom: 'option' | 'config' | 'cwd';
  plugins: PluginEntry[];
  builtins: boolean;
  toolsets: Record<string, { description?: string; includes: string[]; tools: string[] }>;
  enable: string[];
  disable: string[];
  prefer: Record<string, string>;
  checks: { ttlMs: number; graceMs: number; timeoutMs: number };
  limits: HostLimits;
  codeExecution: CodeLimits & { tools: string[] | undefined };
  /** `dir` is undefined when there is no safe default folder (the cache is then off) */
  cache: {
    dir: string | undefined;
    enabled: boolean;
    /** why a configured `cache.dir` was not used (it lies where the model's tools write) */
    refused?: string;
  };
  /** `toolshed serve`: the largest message one stdio line may carry; over HTTP, the idle time after which a session closes and the most sessions at once */
  serve: { maxMessageBytes: number; sessionIdleMs: number; maxSessions: number };
  hooks: string[];
  /** the config's own protected paths, as written (relative to `dir`) */
  protect: string[];
  approve: { tools: string[]; destructive: boolean; timeoutMs: number };
  /** names and patterns to defer, or 'auto' (docs/tool-search.md) */
  defer: string[] | 'auto';
  search: ResolvedSearch;
  mcpServers: Record<string, McpServerEntry>;
  /** the default resource limits of sandboxed children; an entry's own `resources` overrides them key by key */
  resources: ResourceLimits;
  /** what a changed MCP tool definition does, for every server without its own */
  definitionChanges: DefinitionChanges;
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
  if (validate(value)) return value as ToolshedConfig;
  const list = problems(validate.errors);
  const where = file ?? 'config object';
  const first = list[0];
  throw new ConfigError(`${where}: ${formatProblems(list)}`, {
    ...(file ? { file } : {}),
    ...(first ? { pointer: first.pointer, expected: first.message } : {}),
    problems: list,
  } as never);
}

/** Called with each file cosmiconfig reads (the config and its `$import`s), before its loader runs: may throw to stop the load. */
export type OnConfigRead = (filepath: string, content: string) => void;

async function explorer(sources: Map<string, string>, onRead: OnConfigRead | undefined, places: readonly string[] = SEARCH_PLACES) {
  // Loaded on use: a host given a config object never needs it.
  const { cosmiconfig, defaultLoaders } = await import('cosmiconfig');
  type Loader = (filepath: string, content: string) => unknown;
  // Every read is seen first, so a JS config can be refused before its code is imported.
  const seen = (loader: Loader): Loader => (filepath, content) => {
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
export async function loadConfig(options: { cwd: string; file?: string; onRead?: OnConfigRead }): Promise<LoadedConfig> {
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
      // In a plugin's own folder its package.json is metadata: look on for a config file (a dev config that loads the plugin).
      if (result && isPluginMetadata(result)) {
        sources.clear();
        result = await (await explorer(sources, options.onRead, SEARCH_PLACES.filter((p) => p !== 'package.json'))).search(options.cwd);
      }
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const err = error as NodeJS.ErrnoException;
    if (options.file && err.code === 'ENOENT') {
      throw new ConfigError(`config file not found: ${options.file}`, { file: options.file }, { cause: error });
    }
    throw new ConfigError(`could not load the config${options.file ? ` ${options.file}` : ''}: ${err.message}`, options.file ? { file: options.file } : {}, { cause: error });
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
  const kind = info.isDirectory() ? 'a directory' : info.isFIFO() ? 'a FIFO (named pipe)' : info.isSocket() ? 'a socket' : info.isCharacterDevice() || info.isBlockDevice() ? 'a device' : 'not a regular file';
  throw new ConfigError(`the config ${shown} is ${kind}; --config must name a regular file`, { file: shown });
}

/**
 * A plugin package's own package.json carries `toolshed: { apiVersion }`,
 * which is plugin metadata and not a host config: running toolshed inside a
 * plugin's folder must not read it as one.
 */
function isPluginMetadata(result: { config: unknown; filepath: string }): boolean {
  return path.basename(result.filepath) === 'package.json' && typeof result.config === 'object' && result.config !== null && 'apiVersion' in result.config;
}

/** Where the workspace root comes from, strongest first: an explicit root (`--root`, the embedder), the config's `root`, then `fallback` (the host's cwd). */
export interface RootChoice {
  explicit?: string;
  fallback: string;
}

/** Fills defaults; relative paths in the config resolve from `dir`. */
export function resolveConfig(config: ToolshedConfig, file: string | undefined, dir: string, cores: number, root: RootChoice = { fallback: dir }): ResolvedConfig {
  const toolsets: ResolvedConfig['toolsets'] = {};
  for (const [name, spec] of Object.entries(config.toolsets ?? {})) {
    toolsets[name] = { ...(spec.description ? { description: spec.description } : {}), includes: spec.includes ?? [], tools: spec.tools ?? [] };
  }
  const workspace = root.explicit !== undefined ? path.resolve(root.explicit) : config.root !== undefined ? path.resolve(dir, config.root) : path.resolve(root.fallback);
  const plugins = config.plugins ?? [];
  const mcpServers = config.mcpServers ?? {};
  const cache = chooseCacheDir(config.cache?.dir !== undefined ? path.resolve(dir, config.cache.dir) : undefined, writableRoots({ root: workspace, dir, plugins, mcpServers }));
  const cacheDir = cache.dir;
  return {
    file,
    dir,
    root: workspace,
    rootFrom: root.explicit !== undefined ? 'option' : config.root !== undefined ? 'config' : 'cwd',
    plugins,
    builtins: config.builtins ?? true,
    toolsets,
    enable: config.enable ?? ['all'],
    disable: config.disable ?? [],
    prefer: config.prefer ?? {},
    checks: { ttlMs: 30_000, graceMs: 60_000, timeoutMs: 5_000, ...config.checks },
    limits: {
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
      ...config.limits,
      breaker: { failures: 5, windowMs: 60_000, coolDownMs: 30_000, ...config.limits?.breaker },
    },
    codeExecution: { tools: config.codeExecution?.tools, ...DEFAULT_CODE_LIMITS, ...stripUndefined(config.codeExecution) },
    cache: { dir: cacheDir, enabled: cacheDir !== undefined && (config.cache?.enabled ?? true), ...(cache.refused ? { refused: cache.refused } : {}) },
    serve: { maxMessageBytes: config.serve?.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES, sessionIdleMs: config.serve?.sessionIdleMs ?? 600_000, maxSessions: config.serve?.maxSessions ?? 100 },
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

function resolveSearch(search: SearchConfig = {}): ResolvedSearch {
  const native = search.native === true ? 'bm25' : (search.native ?? false);
  return {
    maxResults: search.maxResults ?? 10,
    alwaysLoaded: search.alwaysLoaded ?? [],
    native,
    budgetTokens: search.budgetTokens ?? 8000,
    sessions: { max: 1000, ttlMs: 3_600_000, maxTools: 64, ...stripUndefined(search.sessions) },
    exclude: search.exclude ?? [],
  };
}

/** `approve` in its one shape: a list of names means `{ tools: list }`. */
function resolveApprove(approve: ToolshedConfig['approve']): ResolvedConfig['approve'] {
  const spec = Array.isArray(approve) ? { tools: approve } : (approve ?? {});
  return { tools: spec.tools ?? [], destructive: spec.destructive ?? false, timeoutMs: spec.timeoutMs ?? 120_000 };
}

/** A copy of `value` without its undefined properties, so spreading it keeps defaults. */
export function stripUndefined<T extends object>(value: T | undefined): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(value ?? {})) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** The resource limits of the plugin `source` (config entry by specifier or name): its entry's `resources` over the top-level ones. */
export function pluginResources(config: Pick<ResolvedConfig, 'plugins' | 'resources'>, source: { specifier: string; name: string }): ResourceLimits {
  const entry = config.plugins.find((e): e is Exclude<PluginEntry, string> => typeof e === 'object' && (e.package === source.specifier || e.package === source.name));
  return resolveResources(entry?.resources, config.resources);
}
