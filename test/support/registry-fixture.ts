/**
 * A registry built in memory, for unit tests of the pure expose stages (toolset selection,
 * description rewriting, deferral): the plugins' manifests go through the loader's own
 * normalization, the config through the host's own resolution, but no worker starts and
 * no plugin package is read. A stage that tries to run plugin code hits a runner that throws.
 */
import os from 'node:os';
import { PluginError } from '#internal/boundary/errors.js';
import { type ResolvedConfig, resolveConfig, validateConfigObject } from '#internal/core/config/config.js';
import { Registry } from '#internal/core/expose/registry.js';
import { normalizeManifest } from '#internal/core/load/manifest.js';
import type { FailedPlugin, LoadedPlugin, PluginLoadResult } from '#internal/core/load/types.js';
import type { DescriptionPart, JsonSchema, ToolsetSpec } from 'toolshed/plugin';

/** A tool as a plugin declares it, minus its code. */
export interface FixtureTool {
  name: string;
  /** default: the plugin's name */
  toolset?: string;
  description?: string | DescriptionPart[];
  /** default: `{ type: 'object' }` */
  parameters?: JsonSchema;
  requires?: { env?: string[]; bins?: string[]; tools?: string[]; platforms?: string[] };
  sandbox?: boolean;
}

/** A plugin as its default export declares it, minus its code. */
export interface FixturePlugin {
  name: string;
  toolsets?: Record<string, ToolsetSpec>;
  tools: FixtureTool[];
}

/** Stands where a plugin's worker pool would be: the stages under test never run plugin code. */
const NO_RUNNER = new Proxy(
  {},
  {
    get(_target, key) {
      if (typeof key === 'symbol' || key === 'then') return undefined;
      throw new Error(`the registry fixture starts no worker: the code under test asked the runner for ${key}`);
    },
  },
) as LoadedPlugin['runner'];

/** A loaded plugin whose manifest is `plugin`, normalized by the loader's own code. */
export function loadedPlugin(plugin: FixturePlugin): LoadedPlugin {
  const dir = `/fixture/${plugin.name}`;
  const source = {
    name: plugin.name,
    specifier: plugin.name,
    dir,
    entry: `${dir}/index.js`,
    version: '1.0.0',
    builtin: false,
    trust: 'trusted' as const,
    dependencyDirs: [],
  };
  // What a worker's extraction hands the host: plain data, each function replaced by its typeof.
  const tools = plugin.tools.map((tool) => ({
    ...tool,
    description: tool.description ?? `${tool.name} tool`,
    parameters: tool.parameters ?? { type: 'object' },
    handler: 'function',
  }));
  // As a cached manifest is read at startup: parameter schemas are not compiled (an ajv compile costs milliseconds,
  // none of these stages reads them).
  const manifest = normalizeManifest({ apiVersion: 1, toolsets: plugin.toolsets ?? {}, tools }, source, {
    compileParameters: false,
  });
  const none = { fsRead: [], fsWrite: [], env: [], network: false };
  return {
    status: 'loaded',
    source,
    manifest,
    manifestSource: 'extracted',
    loadMs: 0,
    runner: NO_RUNNER,
    env: [],
    scope: { roots: { read: [], write: [] }, options: {} },
    permissions: { requested: none, granted: none, effective: none },
  };
}

/** A plugin that failed to load; `toolsets`, when given, are what its last cached manifest declared. */
export function failedPlugin(name: string, toolsets?: string[]): FailedPlugin {
  return {
    status: 'failed',
    specifier: name,
    name,
    error: new PluginError('PLUGIN_IMPORT_FAILED', `${name}: import failed`, { plugin: name }),
    loadMs: 0,
    known: toolsets ? { from: 'last-manifest', toolsets, tools: [] } : { from: 'name', toolsets: [name], tools: [] },
  };
}

/**
 * A registry holding `plugins` in config order (plain fixtures are loaded ones), as the host builds it after loading.
 */
export function registryOf(
  plugins: Array<FixturePlugin | PluginLoadResult>,
  prefer: Record<string, string> = {},
): Registry {
  const registry = new Registry();
  registry.setPlugins(
    plugins.map((plugin) => ('status' in plugin ? plugin : loadedPlugin(plugin))),
    prefer,
  );
  return registry;
}

/** A config object validated and resolved as the host does, without a file. */
export function resolvedConfig(config: Record<string, unknown> = {}): ResolvedConfig {
  return resolveConfig(validateConfigObject(config, undefined), undefined, os.tmpdir(), 2);
}

/** test/fixtures/plugins/seed as data: browse says "prefer web_search" only while web_search can be called. */
export const SEED: FixturePlugin = {
  name: 'seed',
  toolsets: { research: { description: 'Browse and search', includes: [] } },
  tools: [
    {
      name: 'browse',
      toolset: 'research',
      description: [
        'Open a URL and return its readable text.',
        { ifAvailable: ['web_search'], text: 'To find pages, prefer web_search.' },
        { ifMissing: ['web_search'], text: 'Only known URLs can be opened.' },
      ],
    },
    { name: 'web_search', toolset: 'research', description: 'Search the web.', requires: { env: ['SEARCH_API_KEY'] } },
    { name: 'summarize', toolset: 'research', description: 'Summarize text. Feed it the output of web_search.' },
    { name: 'zeta', toolset: 'research', description: 'Sorted last.' },
  ],
};
