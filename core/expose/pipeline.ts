/**
 * The definitions pipeline: registry snapshot → layer 1 (selection) →
 * layer 2 (availability) → layer 3 (schema correction) → sorted
 * definitions. The result is memoized against the registry generation and
 * the earliest check expiry, so a repeat call with nothing changed runs no
 * check and touches no worker.
 */
import { evaluateAvailability, planAvailability, type AvailabilityDeps, type AvailabilityPlan } from './availability.js';
import { DescriptionTokens, danglingReferences, resolveDescription } from './descriptions.js';
import { selectTools, type Toolset } from './toolsets.js';
import { planDeferral } from './deferral.js';
import { deferralInput, deferralSelection, lenientIf, withDeferral } from './deferral-stage.js';
import type { CheckCache } from './check-cache.js';
import type { Availability, Clock, SchemaRewriter, ToolState } from './public-types.js';
import { toolView, ToolViews } from './tool-view.js';
import type { ResolvedConfig } from '../config/config.js';
import type { Registry } from './registry.js';
import type { ToolDefinition } from '../providers/types.js';
import type { ToolRecord } from '../load/types.js';
import { ToolStates } from './tool-states.js';

export type { HiddenLayer, RewriteContext, RewriterTool, SchemaRewriter, ToolState } from './public-types.js';

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
  states: ToolStates;
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

/**
 * What the pipeline derives once per plugin set. Every per-compute table is an array indexed
 * by a tool's position in `records` (registry order), walked in order: at thousands of tools a
 * lookup by name in a hash table misses the CPU's caches, where a walk along an array does not,
 * and a recompute costs a few such lookups per tool at most.
 */
interface LayerIndex {
  plugins: Registry['plugins'];
  /** every registered tool in registry order (the states come out in this order) */
  records: ToolRecord[];
  /** by position: what each state starts from, read without touching the records */
  names: string[];
  pluginNames: string[];
  toolsets: string[];
  /** positions in `records`, sorted by tool name (definitions come out in this order) */
  byName: number[];
  /** name → position */
  position: Map<string, number>;
  /** position → positions of tools whose conditional description parts mention it */
  mentionedBy: Map<number, number[]>;
  /** positions of tools a schema rewriter applies to, with it */
  rewritten: Array<{ at: number; rewriter: SchemaRewriter }>;
}

function layerIndex(registry: Registry, rewriters: readonly SchemaRewriter[]): LayerIndex {
  const records = [...registry.tools.values()];
  const position = new Map(records.map((record, at) => [record.name, at]));
  const mentionedBy = new Map<number, number[]>();
  const rewritten: LayerIndex['rewritten'] = [];
  records.forEach((record, at) => {
    for (const part of record.manifest.description) {
      if (typeof part === 'string') continue;
      for (const name of 'ifAvailable' in part ? part.ifAvailable : part.ifMissing) {
        const mentioned = position.get(name);
        if (mentioned === undefined) continue;
        const list = mentionedBy.get(mentioned);
        if (list) list.push(at);
        else mentionedBy.set(mentioned, [at]);
      }
    }
    const rewriter = rewriters.find((r) => r.appliesTo(toolView(record)));
    if (rewriter) rewritten.push({ at, rewriter });
  });
  const byName = records.map((_, at) => at).sort((a, b) => (records[a]!.name < records[b]!.name ? -1 : records[a]!.name > records[b]!.name ? 1 : 0));
  return {
    plugins: registry.plugins,
    records,
    names: records.map((record) => record.name),
    pluginNames: records.map((record) => record.plugin.source.name),
    toolsets: records.map((record) => record.manifest.toolset),
    byName,
    position,
    mentionedBy,
    rewritten,
  };
}

/** The exposed set as `resolveDescription` reads it: a flag per position. */
class ExposedFlags {
  constructor(
    private readonly layer: LayerIndex,
    private readonly at: Uint8Array,
  ) {}

  has(name: string): boolean {
    const at = this.layer.position.get(name);
    return at !== undefined && this.at[at] === 1;
  }
}

/** What layer 1 chose, by position: cached with the selection. */
interface Chosen {
  layer: LayerIndex;
  selection: ReturnType<typeof selectTools>;
  /** the selected tools in registry order, and their positions */
  records: ToolRecord[];
  positions: number[];
  /** how layer 2 evaluates `records` again */
  plan: AvailabilityPlan;
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
      states.set(tool.name, { name: tool.name, plugin: plugin.name, toolset: tool.toolset, exposed: false, layer: 'load', reason: `${plugin.error.code}: ${plugin.error.message}`, warnings: [] });
    }
  }
}

/** The warnings of a state that has none: one array for all of them, never written (a state with warnings gets its own). */
const NO_WARNINGS: string[] = Object.freeze([]) as unknown as string[];

/** Whether two verdicts say the same (a recomputed one is a new object). */
function sameVerdict(a: Availability, b: Availability): boolean {
  return a === b || (a.ok === b.ok && a.reason === b.reason && a.kind === b.kind && a.via === b.via && a.maskedReason === b.maskedReason);
}

/** What the last full computation started from, and what it made. */
interface LastRun {
  chosen: Chosen;
  results: Availability[];
  exposure: Exposure;
  /** no schema rewriter that must be asked again ran (see SchemaRewriter.pure), and none hid a tool */
  settled: boolean;
}

/** Computes and memoizes exposures. */
export class DefinitionsPipeline {
  private memo: Exposure | undefined;
  private running: Promise<Exposure> | undefined;
  private lastDefinitions: ToolDefinition[] | undefined;
  private lastShown: ToolDefinition[] | undefined;
  private readonly warned = new Set<string>();
  /** the plain definition last made for each position (see definition()) */
  private plainAt: Array<ToolDefinition | undefined> = [];
  private selection: { plugins: Registry['plugins']; config: ResolvedConfig; result: ReturnType<typeof selectTools> } | undefined;
  private layer: LayerIndex = { plugins: [], records: [], names: [], pluginNames: [], toolsets: [], byName: [], position: new Map(), mentionedBy: new Map(), rewritten: [] };
  private chosen: Chosen | undefined;
  /** for each position: the definition last guarded there and the positions of the tools it mentions */
  private mentionsAt: Array<{ def: ToolDefinition; positions: number[] } | undefined> = [];
  private lastRun: LastRun | undefined;
  /** the exposed flags the plain definitions were last resolved against */
  private lastExposedAt: Uint8Array | undefined;

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
    const chosen = this.select(config);
    const { layer } = chosen;
    const { selected, reasons, toolsets } = chosen.selection;
    const warnings = [...chosen.selection.warnings];
    const { results, validUntil } = await evaluateAvailability(chosen.records, { ...this.deps.availability, cache: this.deps.cache }, chosen.plan);
    const last = this.lastRun;
    if (last?.settled && last.chosen === chosen && results.every((verdict, i) => sameVerdict(verdict, last.results[i]!))) {
      // Same selection, same verdicts: layer 3 would make what it made last time. Only the
      // verdicts were asked again (a checked tool's through the cache), so this costs their number.
      return this.settle({ ...last.exposure, generation, validUntil }, generation, false);
    }
    const count = layer.records.length;
    const verdictAt: Array<Availability | undefined> = new Array(count);
    for (let k = 0; k < chosen.positions.length; k++) verdictAt[chosen.positions[k]!] = results[k];
    const stateAt: ToolState[] = new Array(count);
    const conflicts = registry.conflicts.length ? new Map(registry.conflicts.map((c) => [c.name, c])) : undefined;
    // In registry order, as the states are. An available tool starts exposed; the few that
    // layer 3 hides are turned back below.
    const { names } = layer;
    const available: string[] = [];
    const availableAt = new Uint8Array(count);
    for (let at = 0; at < count; at++) {
      const name = names[at]!;
      const availability = verdictAt[at];
      const ok = availability?.ok === true;
      const state: ToolState = { name, plugin: layer.pluginNames[at]!, toolset: layer.toolsets[at]!, exposed: ok, warnings: NO_WARNINGS };
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
          state.warnings = [`check failed (${availability.maskedReason}) but a success within the grace window is served`];
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
    const plan = planDeferral(deferralInput(registry, available, toolsets, config), deferralSelection(config), lenientIf(registry, warnings));
    warnings.push(...plan.warnings);
    const corrected = await this.correct(availableAt, stateAt, plan.deferred);
    const { definitions, shown, deferred } = withDeferral(corrected.definitions, states, plan.deferred, config.search);
    // Deferral leaves layer 3's list as it is unless it adds tool_search (and hides a plugin's
    // tool of that name): then the exposed positions are read off the list.
    let exposedAt = corrected.exposedAt;
    const aligned = definitions === corrected.definitions;
    if (!aligned) {
      exposedAt = new Uint8Array(count);
      for (const definition of definitions) {
        const at = layer.position.get(definition.name);
        if (at !== undefined) exposedAt[at] = 1;
      }
    }
    // Only the states whose tool layer 3 (or deferral) took out or put in differ from where they started.
    for (let at = 0; at < count; at++) if (exposedAt[at] !== availableAt[at]) stateAt[at]!.exposed = exposedAt[at] === 1;
    this.guard(definitions, exposedAt, aligned, states, warnings);
    // Nothing changed: the same arrays as last time, so what is derived from them (a provider's format) is reused.
    const changed = this.lastDefinitions !== undefined && !sameDefinitions(this.lastDefinitions, definitions);
    const exposure: Exposure = {
      generation,
      validUntil,
      definitions: this.lastDefinitions && !changed ? this.lastDefinitions : definitions,
      shown: this.lastShown && sameDefinitions(this.lastShown, shown) ? this.lastShown : shown,
      deferred,
      states,
      toolsets,
      counts: { registered: registry.tools.size, selected: selected.size, available: available.length, exposed: definitions.length },
      warnings,
    };
    this.lastDefinitions = exposure.definitions;
    this.lastShown = exposure.shown;
    this.lastRun = { chosen, results, exposure, settled: corrected.settled };
    return this.settle(exposure, generation, changed);
  }

  /** Makes `exposure` the memo, with a new generation if the definitions changed. */
  private settle(exposure: Exposure, generation: number, changed: boolean): Exposure {
    const { registry } = this.deps;
    if (changed && registry.generation === generation) exposure.generation = registry.bump();
    else if (registry.generation !== generation) exposure.validUntil = -Infinity; // changed while computing: recompute next time
    this.memo = exposure;
    if (changed) this.deps.onChange(registry.generation, exposure);
    return exposure;
  }

  /**
   * Layer 3: conditional description parts, then the schema rewriters, sorted by name. Returns
   * the definitions and which positions they are.
   */
  private async correct(availableAt: Uint8Array, stateAt: ToolState[], deferred: ReadonlySet<string>): Promise<{ definitions: ToolDefinition[]; exposedAt: Uint8Array; settled: boolean }> {
    const { registry } = this.deps;
    const { layer } = this;
    let exposedAt = availableAt;
    // Descriptions depend on the exposed set and a rewriter may hide a tool; two passes settle it.
    for (let pass = 0; pass < 2; pass++) {
      const exposed = new ExposedFlags(layer, exposedAt);
      const dirty = this.staleDescriptions(exposedAt);
      const definitions: ToolDefinition[] = [];
      for (const at of layer.byName) {
        if (exposedAt[at] !== 1) continue;
        const previous = dirty === 'all' || dirty[at] === 1 ? undefined : this.plainAt[at];
        definitions.push(previous ?? this.definition(at, exposed));
      }
      this.lastExposedAt = exposedAt;
      const rewritten = layer.rewritten.filter(({ at }) => exposedAt[at] === 1);
      if (!rewritten.length) return { definitions, exposedAt, settled: true };
      // A rewriter sees the exposed definitions by name, with the rewrites before it applied.
      const defs = new Map(definitions.map((d) => [d.name, d]));
      let hidden: number[] | undefined;
      for (const { at, rewriter } of rewritten) {
        const { name } = layer.records[at]!;
        const outcome = await rewriter.rewrite(defs.get(name)!, { exposed: defs, tools: new ToolViews(registry.tools), deferred });
        if ('hidden' in outcome) {
          defs.delete(name);
          const state = stateAt[at]!;
          state.layer = 'schema';
          state.reason = outcome.hidden;
          (hidden ??= []).push(at);
        } else {
          defs.set(name, outcome.definition);
        }
      }
      // Insertion followed the sorted names, so the values are sorted already.
      // A copy: the descriptions were resolved against the flags as they are (lastExposedAt).
      if (hidden) {
        exposedAt = Uint8Array.from(exposedAt);
        for (const at of hidden) exposedAt[at] = 0;
      }
      if (!hidden || pass === 1) return { definitions: [...defs.values()], exposedAt, settled: !hidden && rewritten.every(({ rewriter }) => rewriter.pure === true) };
    }
    return { definitions: [], exposedAt, settled: false };
  }

  /**
   * Positions whose description may read differently against `exposedAt` than against the
   * last exposed set: those whose conditional parts name a tool that came or went. A
   * recompute after one check flipped re-resolves a handful of descriptions, not all of them.
   */
  private staleDescriptions(exposedAt: Uint8Array): Uint8Array | 'all' {
    const last = this.lastExposedAt;
    if (!last) return 'all';
    const dirty = new Uint8Array(exposedAt.length);
    for (let at = 0; at < exposedAt.length; at++) {
      if (exposedAt[at] === last[at]) continue;
      // A tool that comes back was last resolved against an older set.
      if (exposedAt[at] === 1) dirty[at] = 1;
      for (const tool of this.layer.mentionedBy.get(at) ?? []) dirty[tool] = 1;
    }
    return dirty;
  }

  /**
   * Layer 1 depends only on the plugin set and the config: a recompute for a check
   * verdict reuses it, and what is derived from it by position.
   */
  private select(config: ResolvedConfig): Chosen {
    const { registry } = this.deps;
    if (this.layer.plugins !== registry.plugins) {
      this.layer = layerIndex(registry, this.deps.rewriters);
      this.plainAt = [];
      this.mentionsAt = [];
      this.lastExposedAt = undefined;
      this.lastRun = undefined;
    }
    if (this.selection?.plugins !== registry.plugins || this.selection.config !== config) {
      const result = selectTools(registry, config);
      // A view's narrowing depends on the same inputs, so it is reused with the selection.
      this.deps.narrow?.(result.selected, result.reasons, result.toolsets);
      this.selection = { plugins: registry.plugins, config, result };
    }
    const { result } = this.selection;
    if (this.chosen?.selection !== result || this.chosen.layer !== this.layer) {
      const records: ToolRecord[] = [];
      const positions: number[] = [];
      this.layer.records.forEach((record, at) => {
        if (!result.selected.has(record.name)) return;
        records.push(record);
        positions.push(at);
      });
      const { platform } = this.deps.availability;
      this.chosen = { layer: this.layer, selection: result, records, positions, plan: planAvailability(records, platform) };
    }
    return this.chosen;
  }

  /**
   * The plain definition of the tool at `at` against `exposed`: the previous object when
   * nothing in it changed, so a recompute allocates little and change detection compares by reference.
   */
  private definition(at: number, exposed: ExposedFlags): ToolDefinition {
    const record = this.layer.records[at]!;
    const description = resolveDescription(record.manifest.description, exposed);
    const previous = this.plainAt[at];
    if (previous && previous.description === description && previous.parameters === record.manifest.parameters) return previous;
    const def: ToolDefinition = { name: record.name, description, parameters: record.manifest.parameters };
    if (Object.keys(record.manifest.annotations).length) def.annotations = record.manifest.annotations;
    if (record.manifest.dialect) def.dialect = record.manifest.dialect.dialect;
    this.plainAt[at] = def;
    return def;
  }

  /**
   * Cross-reference guard: a description naming a registered tool that is not exposed is a
   * warning. Each description text is tokenized once (DescriptionTokens, shared with the
   * host's views) and what it mentions is kept by position with its definition, so a recompute
   * then reads only the exposed flags of the few tools each description mentions. `aligned`:
   * `defs` are layer 3's own list, the exposed positions in name order.
   */
  private guard(defs: ToolDefinition[], exposedAt: Uint8Array, aligned: boolean, states: ToolStates, warnings: string[]): void {
    const { records, byName } = this.layer;
    if (!exposedAt.includes(0)) return;
    if (aligned) {
      let next = 0;
      for (const at of byName) {
        if (exposedAt[at] !== 1) continue;
        const def = defs[next++]!;
        let dangling: string[] | undefined;
        for (const mentioned of this.mentions(at, def)) if (mentioned !== at && exposedAt[mentioned] !== 1) (dangling ??= []).push(records[mentioned]!.name);
        if (dangling) this.warn(def.name, dangling.sort(), states, warnings);
      }
      return;
    }
    const hidden = new Set<string>();
    for (let at = 0; at < records.length; at++) if (exposedAt[at] !== 1) hidden.add(records[at]!.name);
    const known = this.deps.registry.toolNames;
    for (const def of defs) {
      const dangling = danglingReferences(this.deps.tokens.of(def, known), def.name, hidden);
      if (dangling.length) this.warn(def.name, dangling, states, warnings);
    }
  }

  /** The positions of the registered tools `def` (the definition at `at`) mentions. */
  private mentions(at: number, def: ToolDefinition): readonly number[] {
    const kept = this.mentionsAt[at];
    if (kept?.def === def) return kept.positions;
    const { position } = this.layer;
    const positions: number[] = [];
    for (const name of this.deps.tokens.of(def, this.deps.registry.toolNames)) {
      const mentioned = position.get(name);
      if (mentioned !== undefined) positions.push(mentioned);
    }
    this.mentionsAt[at] = { def, positions };
    return positions;
  }

  private warn(name: string, dangling: string[], states: ToolStates, warnings: string[]): void {
    const message = `description of ${name} mentions ${dangling.join(', ')}, which ${dangling.length > 1 ? 'are' : 'is'} not exposed`;
    const state = states.get(name);
    if (state) state.warnings = [...state.warnings, message];
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
