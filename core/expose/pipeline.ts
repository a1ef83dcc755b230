/**
 * The definitions pipeline: registry snapshot → layer 1 (selection) →
 * layer 2 (availability) → layer 3 (schema correction) → sorted
 * definitions. The result is memoized against the registry generation and
 * the earliest check expiry, so a repeat call with nothing changed runs no
 * check and touches no worker.
 */
import { evaluateAvailability, type Availability, type AvailabilityDeps } from './availability.js';
import { DescriptionTokens, danglingReferences, resolveDescription } from './descriptions.js';
import { selectTools, type Toolset } from './toolsets.js';
import { planDeferral } from './deferral.js';
import { deferralInput, deferralSelection, lenientIf, withDeferral } from './deferral-stage.js';
import type { CheckCache, Clock } from './check-cache.js';
import type { ResolvedConfig } from '../load/config.js';
import type { Registry } from './registry.js';
import type { ToolDefinition } from '../providers/types.js';
import type { ToolConflict, ToolRecord } from '../types.js';

/** Where in the pipeline a tool was hidden. */
export type HiddenLayer = 'load' | 'selection' | 'availability' | 'schema';

/** Every registered tool's state, for explain. */
export interface ToolState {
  name: string;
  plugin: string;
  toolset: string;
  exposed: boolean;
  layer?: HiddenLayer;
  reason?: string;
  availability?: Availability;
  /** guard findings and masked failures */
  warnings: string[];
  conflict?: ToolConflict;
  /** exposed and callable, but left out of definitions() until a search loads it for a session */
  deferred?: boolean;
}

/** The tools a schema rewriter may see and the limits it may state. */
export interface RewriteContext {
  exposed: ReadonlyMap<string, ToolDefinition>;
  records: ReadonlyMap<string, ToolRecord>;
  /** exposed tools that are deferred (listed only once a search loads them) */
  deferred: ReadonlySet<string>;
}

/**
 * A definitions step that rebuilds one tool's schema from live facts (the
 * execute_code rebuild plugs in here). Returning `{ hidden }` hides the tool.
 */
export interface SchemaRewriter {
  appliesTo(record: ToolRecord): boolean;
  rewrite(definition: ToolDefinition, context: RewriteContext): Promise<{ definition: ToolDefinition } | { hidden: string }>;
}

/** One computed exposure: what the model is shown, and why everything else is not. */
export interface Exposure {
  generation: number;
  validUntil: number;
  /** every exposed (callable) tool, deferred ones and tool_search included, sorted by name */
  definitions: ToolDefinition[];
  /** what definitions() lists before any session loads anything: the exposed tools that are not deferred */
  shown: ToolDefinition[];
  /** exposed tools left out of `shown` until found */
  deferred: ReadonlySet<string>;
  states: Map<string, ToolState>;
  toolsets: Map<string, Toolset>;
  counts: { registered: number; selected: number; available: number; exposed: number };
  warnings: string[];
}

/** What the pipeline needs from the host. */
export interface PipelineDeps {
  registry: Registry;
  config: () => ResolvedConfig;
  cache: CheckCache;
  clock: Clock;
  availability: Omit<AvailabilityDeps, 'cache'>;
  rewriters: SchemaRewriter[];
  /** the description tokens the cross-reference guard reads, shared by a host and its views */
  tokens: DescriptionTokens;
  /** narrows layer 1's selection further (a view's own selection); records why for each tool it drops */
  narrow?(selected: Set<string>, reasons: Map<string, string>, toolsets: Map<string, Toolset>): void;
  /** called when the exposed set changed (after the generation bump) */
  onChange(generation: number, exposure: Exposure): void;
  onWarning(message: string): void;
}

/** Whether two definition lists would serialize identically (cheap path: same parameter objects). */
function sameDefinitions(a: readonly ToolDefinition[] | undefined, b: readonly ToolDefinition[]): boolean {
  if (!a || a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i]!;
    return x === y || x.name === y.name && x.description === y.description && (x.parameters === y.parameters || JSON.stringify(x.parameters) === JSON.stringify(y.parameters));
  });
}

/** What layer 3 derives once per plugin set. */
interface LayerIndex {
  plugins: Registry['plugins'];
  /** every registered name, sorted (definitions come out in this order) */
  sortedNames: string[];
  /** name → tools whose conditional description parts mention it */
  mentionedBy: Map<string, string[]>;
}

function layerIndex(registry: Registry): LayerIndex {
  const mentionedBy = new Map<string, string[]>();
  for (const record of registry.tools.values()) {
    for (const part of record.manifest.description) {
      if (typeof part === 'string') continue;
      for (const name of 'ifAvailable' in part ? part.ifAvailable : part.ifMissing) {
        const list = mentionedBy.get(name);
        if (list) list.push(record.name);
        else mentionedBy.set(name, [record.name]);
      }
    }
  }
  const sortedNames = [...registry.tools.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { plugins: registry.plugins, sortedNames, mentionedBy };
}

/**
 * The tools of plugins that failed to load, as far as their last manifest tells: hidden at
 * layer `load` with the plugin's own error, so explain says why they are missing.
 */
function addFailedPluginTools(registry: Registry, states: Map<string, ToolState>): void {
  for (const plugin of registry.plugins) {
    if (plugin.status !== 'failed') continue;
    for (const tool of plugin.known.tools) {
      if (states.has(tool.name)) continue;
      states.set(tool.name, { name: tool.name, plugin: plugin.name, toolset: tool.toolset, exposed: false, layer: 'load', reason: `${plugin.error.code}: ${plugin.error.message}`, warnings: [] });
    }
  }
}

/** Computes and memoizes exposures. */
export class DefinitionsPipeline {
  private memo: Exposure | undefined;
  private running: Promise<Exposure> | undefined;
  private lastDefinitions: ToolDefinition[] | undefined;
  private readonly warned = new Set<string>();
  private readonly plain = new Map<string, ToolDefinition>();
  private selection: { plugins: Registry['plugins']; config: ResolvedConfig; result: ReturnType<typeof selectTools> } | undefined;
  private layer: LayerIndex = { plugins: [], sortedNames: [], mentionedBy: new Map() };
  private lastExposed: ReadonlySet<string> | undefined;

  constructor(private readonly deps: PipelineDeps) {}

  /** The last computed exposure, without recomputing (may be stale). */
  get last(): Exposure | undefined {
    return this.memo;
  }

  /** The current exposure: memoized while the generation holds and no check verdict expired. */
  current(): Promise<Exposure> {
    const { registry, clock } = this.deps;
    if (this.memo && this.memo.generation === registry.generation && clock.now() < this.memo.validUntil) return Promise.resolve(this.memo);
    this.running ??= this.compute().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async compute(): Promise<Exposure> {
    const { registry } = this.deps;
    const config = this.deps.config();
    const generation = registry.generation;
    const { selected, reasons, toolsets, warnings } = this.select(config);
    const records: ToolRecord[] = [];
    for (const name of selected) {
      const record = registry.tools.get(name);
      if (record) records.push(record);
    }
    const { results, validUntil } = await evaluateAvailability(records, { ...this.deps.availability, cache: this.deps.cache });
    const states = new Map<string, ToolState>();
    const conflicts = registry.conflicts.length ? new Map(registry.conflicts.map((c) => [c.name, c])) : undefined;
    // In registry order, as the states are.
    const available: string[] = [];
    for (const record of registry.tools.values()) {
      const state: ToolState = { name: record.name, plugin: record.plugin.source.name, toolset: record.manifest.toolset, exposed: false, warnings: [] };
      const conflict = conflicts?.get(record.name);
      if (conflict) state.conflict = conflict;
      if (!selected.has(record.name)) {
        state.layer = 'selection';
        state.reason = reasons.get(record.name) ?? 'not selected';
      } else {
        const availability = results.get(record.name)!;
        state.availability = availability;
        if (!availability.ok) {
          state.layer = 'availability';
          state.reason = availability.reason ?? 'unavailable';
        } else if (availability.maskedReason) {
          state.warnings.push(`check failed (${availability.maskedReason}) but a success within the grace window is served`);
        }
      }
      if (state.layer === undefined) available.push(record.name);
      states.set(record.name, state);
    }
    addFailedPluginTools(registry, states);
    const plan = planDeferral(deferralInput(registry, available, toolsets, config), deferralSelection(config), lenientIf(registry, warnings));
    warnings.push(...plan.warnings);
    const { definitions, shown, deferred } = withDeferral(await this.correct(available, states, plan.deferred), states, plan.deferred, config.search);
    // Every state starts unexposed: only the exposed ones are touched.
    const exposedNames = new Set<string>();
    for (const definition of definitions) {
      exposedNames.add(definition.name);
      const state = states.get(definition.name);
      if (state) state.exposed = true;
    }
    this.guard(definitions, exposedNames, states, warnings);
    const exposure: Exposure = {
      generation,
      validUntil,
      definitions,
      shown,
      deferred,
      states,
      toolsets,
      counts: { registered: registry.tools.size, selected: selected.size, available: available.length, exposed: definitions.length },
      warnings,
    };
    const changed = this.lastDefinitions !== undefined && !sameDefinitions(this.lastDefinitions, definitions);
    this.lastDefinitions = definitions;
    if (changed && registry.generation === generation) exposure.generation = registry.bump();
    else if (registry.generation !== generation) exposure.validUntil = -Infinity; // changed while computing: recompute next time
    this.memo = exposure;
    if (changed) this.deps.onChange(registry.generation, exposure);
    return exposure;
  }

  /** Layer 3: conditional description parts, then the schema rewriters, sorted by name. */
  private async correct(available: string[], states: Map<string, ToolState>, deferred: ReadonlySet<string>): Promise<ToolDefinition[]> {
    const { registry, rewriters } = this.deps;
    let exposed = new Set(available);
    // Descriptions depend on the exposed set and a rewriter may hide a tool; two passes settle it.
    for (let pass = 0; pass < 2; pass++) {
      const dirty = this.staleDescriptions(exposed);
      const defs = new Map<string, ToolDefinition>();
      for (const name of this.layer.sortedNames) {
        if (!exposed.has(name)) continue;
        const previous = dirty === 'all' || dirty.has(name) ? undefined : this.plain.get(name);
        defs.set(name, previous ?? this.definition(registry.tools.get(name)!, exposed));
      }
      this.lastExposed = exposed;
      let hiddenNow = false;
      for (const [name, def] of defs) {
        const record = registry.tools.get(name)!;
        const rewriter = rewriters.find((r) => r.appliesTo(record));
        if (!rewriter) continue;
        const outcome = await rewriter.rewrite(def, { exposed: defs, records: registry.tools, deferred });
        if ('hidden' in outcome) {
          defs.delete(name);
          const state = states.get(name)!;
          state.layer = 'schema';
          state.reason = outcome.hidden;
          hiddenNow = true;
        } else {
          defs.set(name, outcome.definition);
        }
      }
      // Insertion followed the sorted names, so the values are sorted already.
      if (!hiddenNow || pass === 1) return [...defs.values()];
      exposed = new Set(defs.keys());
    }
    return [];
  }

  /**
   * Tools whose description may read differently against `exposed` than against the last
   * exposed set: those whose conditional parts name a tool that came or went. A recompute
   * after one check flipped re-resolves a handful of descriptions, not all of them.
   */
  private staleDescriptions(exposed: ReadonlySet<string>): Set<string> | 'all' {
    const last = this.lastExposed;
    if (!last) return 'all';
    const dirty = new Set<string>();
    const mark = (name: string) => {
      for (const tool of this.layer.mentionedBy.get(name) ?? []) dirty.add(tool);
    };
    for (const name of exposed) {
      if (last.has(name)) continue;
      // A tool that comes back was last resolved against an older set.
      dirty.add(name);
      mark(name);
    }
    for (const name of last) if (!exposed.has(name)) mark(name);
    return dirty;
  }

  /**
   * Layer 1 depends only on the plugin set and the config: a recompute for a check
   * verdict reuses it. Its warnings list is copied, as the guard adds to it.
   */
  private select(config: ResolvedConfig): ReturnType<typeof selectTools> {
    const { registry } = this.deps;
    if (this.selection?.plugins !== registry.plugins || this.selection.config !== config) {
      const result = selectTools(registry, config);
      // A view's narrowing depends on the same inputs, so it is reused with the selection.
      this.deps.narrow?.(result.selected, result.reasons, result.toolsets);
      this.selection = { plugins: registry.plugins, config, result };
    }
    if (this.layer.plugins !== registry.plugins) {
      this.layer = layerIndex(registry);
      this.plain.clear();
      this.lastExposed = undefined;
    }
    const { result } = this.selection;
    return { ...result, warnings: [...result.warnings] };
  }

  /**
   * The plain definition of a tool against `exposed`: the previous object when nothing in it
   * changed, so a recompute allocates little and change detection compares by reference.
   */
  private definition(record: ToolRecord, exposed: ReadonlySet<string>): ToolDefinition {
    const description = resolveDescription(record.manifest.description, exposed);
    const previous = this.plain.get(record.name);
    if (previous && previous.description === description && previous.parameters === record.manifest.parameters) return previous;
    const def: ToolDefinition = { name: record.name, description, parameters: record.manifest.parameters };
    if (Object.keys(record.manifest.annotations).length) def.annotations = record.manifest.annotations;
    this.plain.set(record.name, def);
    return def;
  }

  /**
   * Cross-reference guard: a description naming a registered tool that is not exposed is a
   * warning. Each description text is tokenized once (DescriptionTokens, shared with the
   * host's views); a recompute then looks up only the few registered names each description
   * mentions in the hidden set, whatever changed.
   */
  private guard(defs: ToolDefinition[], exposed: Set<string>, states: Map<string, ToolState>, warnings: string[]): void {
    const hidden = new Set<string>();
    for (const name of this.layer.sortedNames) if (!exposed.has(name)) hidden.add(name);
    if (!hidden.size) return;
    const known = this.deps.registry.toolNames;
    for (const def of defs) {
      const dangling = danglingReferences(this.deps.tokens.of(def, known), def.name, hidden);
      if (dangling.length) this.warn(def.name, dangling, states, warnings);
    }
  }

  private warn(name: string, dangling: string[], states: Map<string, ToolState>, warnings: string[]): void {
    const message = `description of ${name} mentions ${dangling.join(', ')}, which ${dangling.length > 1 ? 'are' : 'is'} not exposed`;
    states.get(name)?.warnings.push(message);
    warnings.push(message);
    if (!this.warned.has(message)) {
      this.warned.add(message);
      this.deps.onWarning(message);
    }
  }

  /** Drops the memo so the next call recomputes (checks still come from the cache). */
  reset(): void {
    this.memo = undefined;
  }
}
