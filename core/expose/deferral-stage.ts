/**
 * The pipeline's deferral step: feeds the registry and config to
 * `planDeferral` (after layer 2, so layer 3 knows what is deferred), and
 * once layer 3 has run, marks the deferred tools and adds `tool_search`.
 */
import { resolveDescription } from './descriptions.js';
import { definitionSize, type DeferralInput, type DeferralSelection } from './deferral.js';
import { SEARCH_TOOL, searchToolDefinition } from './search-definition.js';
import type { ToolsetError } from '../../boundary/errors.js';
import type { ResolvedConfig, ResolvedSearch } from '../config/config.js';
import type { ToolDefinition } from '../providers/types.js';
import type { ToolState } from './public-types.js';
import type { ToolStates } from './tool-states.js';
import type { Registry } from './registry.js';
import type { Toolset } from './toolsets.js';

/** The plugin name explain shows for the host's own tools. */
const HOST_PLUGIN = 'toolshed';

/** The toolset explain shows tool_search in. */
const SEARCH_TOOLSET = 'search';

/** The host config's deferral selection. */
export function deferralSelection(config: ResolvedConfig): DeferralSelection {
  return { defer: config.defer, alwaysLoaded: config.search.alwaysLoaded, budgetTokens: config.search.budgetTokens };
}

/** What `planDeferral` needs, read from the registry; sizes are computed only if asked ('auto'). */
export function deferralInput(
  registry: Registry,
  available: string[],
  toolsets: ReadonlyMap<string, Toolset>,
  config: ResolvedConfig,
): DeferralInput {
  // Built only when asked: most configs defer nothing and never size a tool.
  let availableSet: ReadonlySet<string> | undefined;
  return {
    names: available,
    toolsets,
    knownTools: registry.toolNames,
    toolsetOf: (name) => registry.tools.get(name)!.manifest.toolset,
    size: (name) => {
      const record = registry.tools.get(name)!;
      availableSet ??= new Set(available);
      return definitionSize({
        name,
        description: resolveDescription(record.manifest.description, availableSet),
        parameters: record.manifest.parameters,
      });
    },
    searchSize: definitionSize(searchToolDefinition(config.search)),
  };
}

/**
 * Unknown names in defer are warnings, not errors, when a plugin failed to load (it may have defined them), as for
 * disable.
 */
export function lenientIf(registry: Registry, warnings: string[]): ((error: ToolsetError) => void) | undefined {
  if (!registry.plugins.some((p) => p.status === 'failed')) return undefined;
  return (error) => warnings.push(`${error.message} (a plugin failed to load; it may have defined it)`);
}

/** Nothing deferred: one set for every exposure, so a memo keyed by it holds across recomputes. */
const NONE: ReadonlySet<string> = new Set();

/**
 * Applies a plan to layer 3's definitions: the deferred set (only tools still
 * exposed), tool_search added when anything is deferred, and the shown list.
 * A plugin tool named tool_search yields to the host's while tools are deferred.
 */
export function withDeferral(
  corrected: ToolDefinition[],
  states: ToolStates,
  planned: ReadonlySet<string>,
  search: ResolvedSearch,
): { definitions: ToolDefinition[]; shown: ToolDefinition[]; deferred: ReadonlySet<string> } {
  if (!planned.size) return { definitions: corrected, shown: corrected, deferred: NONE };
  const deferred = new Set(corrected.filter((d) => planned.has(d.name) && d.name !== SEARCH_TOOL).map((d) => d.name));
  if (!deferred.size) return { definitions: corrected, shown: corrected, deferred };
  for (const name of deferred) states.get(name)!.deferred = true;
  const shadowed = states.get(SEARCH_TOOL);
  const state: ToolState = {
    name: SEARCH_TOOL,
    plugin: HOST_PLUGIN,
    toolset: SEARCH_TOOLSET,
    exposed: true,
    warnings: [],
  };
  if (shadowed)
    state.warnings.push(
      `plugin ${shadowed.plugin}'s ${SEARCH_TOOL} is not exposed: the name is reserved for toolshed's search ` +
        `while tools are deferred`,
    );
  states.set(SEARCH_TOOL, state);
  // Layer 3's list is sorted by name: tool_search goes in at its place (linear, no re-sort).
  const definitions = corrected.filter((d) => d.name !== SEARCH_TOOL);
  const at = definitions.findIndex((d) => d.name > SEARCH_TOOL);
  definitions.splice(at < 0 ? definitions.length : at, 0, searchToolDefinition(search));
  return { definitions, shown: definitions.filter((d) => !deferred.has(d.name)), deferred };
}
