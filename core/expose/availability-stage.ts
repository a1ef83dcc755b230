/**
 * Layer 2's part of a recompute, after the verdicts are in: every registered
 * tool's starting state (hidden at selection or availability, or exposed), in
 * registry order, with the failed plugins' last known tools explained as
 * hidden at load. Layer 3 then turns back the few states it hides.
 */
import { ToolStates } from './tool-states.js';
import type { Availability } from './availability.js';
import type { Chosen } from './selection-stage.js';
import type { ToolState } from './public-types.js';
import type { Registry } from './registry.js';

/**
 * The warnings of a state that has none: one array for all of them, never written (a state with warnings gets its own).
 */
const NO_WARNINGS: string[] = Object.freeze([]) as unknown as string[];

/** Whether two lists of verdicts say the same (a recomputed verdict is a new object). */
export function sameVerdicts(a: readonly Availability[], b: readonly Availability[]): boolean {
  return a.length === b.length && a.every((verdict, i) => sameVerdict(verdict, b[i]!));
}

function sameVerdict(a: Availability, b: Availability): boolean {
  return (
    a === b ||
    (a.ok === b.ok &&
      a.reason === b.reason &&
      a.kind === b.kind &&
      a.via === b.via &&
      a.maskedReason === b.maskedReason)
  );
}

/** The states layer 1 and 2 leave, by position and by name. */
interface StartingStates {
  /** by position in the plugin set's records */
  stateAt: ToolState[];
  states: ToolStates;
  /** the available tools' names, in registry order */
  available: string[];
  /** by position: 1 where the tool is available */
  availableAt: Uint8Array;
}

/** Every registered tool's state once `results` (the verdicts on `chosen.records`) are in. */
export function startingStates(registry: Registry, chosen: Chosen, results: readonly Availability[]): StartingStates {
  const { layer } = chosen;
  const { reasons } = chosen.selection;
  const count = layer.records.length;
  const verdictAt: Array<Availability | undefined> = new Array(count);
  for (let k = 0; k < chosen.positions.length; k++) verdictAt[chosen.positions[k]!] = results[k];
  const stateAt: ToolState[] = new Array(count);
  const conflicts = registry.conflicts.length ? new Map(registry.conflicts.map((c) => [c.name, c])) : undefined;
  // In registry order, as the states are. An available tool starts exposed; the few that
  // layer 3 hides are turned back later.
  const { names } = layer;
  const available: string[] = [];
  const availableAt = new Uint8Array(count);
  for (let at = 0; at < count; at++) {
    const name = names[at]!;
    const availability = verdictAt[at];
    const ok = availability?.ok === true;
    const state: ToolState = {
      name,
      plugin: layer.pluginNames[at]!,
      toolset: layer.toolsets[at]!,
      exposed: ok,
      warnings: NO_WARNINGS,
    };
    const conflict = conflicts?.get(name);
    if (conflict) state.conflict = conflict;
    if (availability === undefined) {
      state.layer = 'selection';
      state.reason = reasons.get(name) ?? 'not selected';
    } else {
      state.availability = availability;
      if (!ok) {
        state.layer = 'availability';
        state.reason = availability.reason ?? 'unavailable';
      } else if (availability.maskedReason) {
        state.warnings = [
          `check failed (${availability.maskedReason}) but a success within the grace window is served`,
        ];
      }
    }
    if (ok) {
      available.push(name);
      availableAt[at] = 1;
    }
    stateAt[at] = state;
  }
  const states = new ToolStates(layer.position, stateAt);
  addFailedPluginTools(registry, states);
  return { stateAt, states, available, availableAt };
}

/**
 * The tools of plugins that failed to load, as far as their last manifest tells: hidden at
 * layer `load` with the plugin's own error, so explain says why they are missing.
 */
function addFailedPluginTools(registry: Registry, states: ToolStates): void {
  for (const plugin of registry.plugins) {
    if (plugin.status !== 'failed') continue;
    for (const tool of plugin.known.tools) {
      if (states.has(tool.name)) continue;
      states.set(tool.name, {
        name: tool.name,
        plugin: plugin.name,
        toolset: tool.toolset,
        exposed: false,
        layer: 'load',
        reason: `${plugin.error.code}: ${plugin.error.message}`,
        warnings: [],
      });
    }
  }
}
