/**
 * Layer 1 for one pipeline, kept while its inputs hold: the plugin set's
 * index is rebuilt when the registry's plugin set is replaced, the selection
 * (and a view's narrowing of it) when the config changes, and a recompute for
 * a check verdict reuses both, with what is derived from them by position.
 */
import { planAvailability, type AvailabilityPlan } from './availability.js';
import { layerIndex, type LayerIndex } from './layer-index.js';
import { selectTools, type Toolset } from './toolsets.js';
import type { Registry } from './registry.js';
import type { SchemaRewriter } from './public-types.js';
import type { ResolvedConfig } from '../config/config.js';
import type { ToolRecord } from '../load/types.js';

/** Narrows layer 1's selection further (a view's own selection); records why for each tool it drops. */
export type Narrow = (selected: Set<string>, reasons: Map<string, string>, toolsets: Map<string, Toolset>) => void;

/** What layer 1 chose, by position. */
export interface Chosen {
  layer: LayerIndex;
  config: ResolvedConfig;
  selection: ReturnType<typeof selectTools>;
  /** the selected tools in registry order, and their positions */
  records: ToolRecord[];
  positions: number[];
  /** how layer 2 evaluates `records` again */
  plan: AvailabilityPlan;
}

/** Layer 1 of one pipeline, with its memo. */
export class SelectionStage {
  private layer: LayerIndex | undefined;
  private chosen: Chosen | undefined;

  constructor(
    private readonly registry: Registry,
    private readonly rewriters: readonly SchemaRewriter[],
    private readonly platform: NodeJS.Platform,
    private readonly narrow?: Narrow,
  ) {}

  /** What layer 1 chooses from the registry's plugin set under `config` (the same object while both hold). */
  select(config: ResolvedConfig): Chosen {
    const { registry } = this;
    if (this.layer?.plugins !== registry.plugins) this.layer = layerIndex(registry, this.rewriters);
    const { layer } = this;
    if (this.chosen?.layer === layer && this.chosen.config === config) return this.chosen;
    const selection = selectTools(registry, config);
    // A view's narrowing depends on the same inputs, so it is reused with the selection.
    this.narrow?.(selection.selected, selection.reasons, selection.toolsets);
    const records: ToolRecord[] = [];
    const positions: number[] = [];
    layer.records.forEach((record, at) => {
      if (!selection.selected.has(record.name)) return;
      records.push(record);
      positions.push(at);
    });
    this.chosen = { layer, config, selection, records, positions, plan: planAvailability(records, this.platform) };
    return this.chosen;
  }
}
