/**
 * Step 3 of `createToolHost`: every plugin entry resolved, then loaded into a
 * `LoadedPlugin` (with its runner, made by the runners step) or a `FailedPlugin`.
 * Entries are resolved first: the protected paths hold each plugin's folder,
 * and every plugin and MCP server gets them before anything of theirs runs.
 */
import { loadPlugins, resolvePluginEntries, resolvedSources, type ResolvedEntry } from '../load/loader.js';
import { protectedPaths } from '../load/protect.js';
import { pluginPins } from '../load/plugin-pins.js';
import type { ResolvedConfig } from '../config/config.js';
import type { PluginLoadResult } from '../load/types.js';
import type { ProtectedPath } from '../../boundary/plugin-api.js';
import type { HostSettings } from './open-config.js';
import type { HostRunners } from './open-runners.js';

/** The plugin entries to load, and the paths no plugin or server may change. */
export interface PluginEntries {
  resolved: ResolvedEntry[];
  protect: readonly ProtectedPath[];
}

/** The loaded plugins, and the problems found while loading that did not stop it (explain lists them). */
export interface HostPlugins {
  plugins: PluginLoadResult[];
  warnings: string[];
}

/** Resolves the config's plugin entries (builtins first) and the protected paths. */
export function resolveEntries(config: ResolvedConfig): PluginEntries {
  const resolved = resolvePluginEntries(config);
  return { resolved, protect: protectedPaths(config, resolvedSources(resolved)) };
}

/** Loads every entry; one that fails is kept as a FailedPlugin. The extraction pool is stopped when loading ends. */
export async function loadEntries(
  settings: HostSettings,
  entries: PluginEntries,
  runners: HostRunners,
): Promise<HostPlugins> {
  const warnings: string[] = [];
  try {
    const plugins = await loadPlugins({
      config: settings.config,
      env: settings.env,
      resolved: entries.resolved,
      protect: entries.protect,
      pin: pluginPins,
      extract: runners.extract,
      createRunner: runners.runnerFor,
      warn: (message) => warnings.push(message),
    });
    return { plugins, warnings };
  } finally {
    await runners.endExtraction();
  }
}
