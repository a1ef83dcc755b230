/**
 * What the expose stage produces: one exposure (what the model is shown, and
 * why every other tool is not) and the per-tool states explain reads.
 */
import type { Toolset } from './toolsets.js';
import type { ToolStates } from './tool-states.js';
import type { ToolDefinition } from '../providers/types.js';

/** One computed exposure: what the model is shown, and why everything else is not. */
export interface Exposure {
  /** the generation of the pipeline that made it: bumped each time that pipeline's definitions change */
  generation: number;
  /** the registry's generation (its plugin set) it was computed from */
  registryGeneration: number;
  validUntil: number;
  /** every exposed (callable) tool, deferred ones and tool_search included, sorted by name */
  definitions: ToolDefinition[];
  /** what definitions() lists before any session loads anything: the exposed tools that are not deferred */
  shown: ToolDefinition[];
  /** exposed tools left out of `shown` until found */
  deferred: ReadonlySet<string>;
  states: ToolStates;
  toolsets: Map<string, Toolset>;
  counts: { registered: number; selected: number; available: number; exposed: number };
  warnings: string[];
}

/** Whether two definition lists would serialize identically (cheap path: same parameter objects). */
export function sameDefinitions(a: readonly ToolDefinition[] | undefined, b: readonly ToolDefinition[]): boolean {
  if (!a || a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i]!;
    return (
      x === y ||
      (x.name === y.name &&
        x.description === y.description &&
        (x.parameters === y.parameters || JSON.stringify(x.parameters) === JSON.stringify(y.parameters)))
    );
  });
}
