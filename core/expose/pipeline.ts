/**
 * The definitions pipeline of one surface (the host's, or a view's): registry
 * snapshot → layer 1 (selection-stage.ts) → layer 2 (availability.ts,
 * availability-stage.ts) → deferral → layer 3 (correction-stage.ts) → sorted
 * definitions. The pipeline owns its memo and its generation: the exposure is
 * reused while the registry's plugin set holds and no check verdict expired,
 * so a repeat call with nothing changed runs no check and touches no worker;
 * the generation moves when this pipeline's definitions change, and never
 * touches the registry, so one surface's change leaves every other's memo be.
 */
import { evaluateAvailability, type AvailabilityDeps, type Availability } from './availability.js';
import { sameVerdicts, startingStates } from './availability-stage.js';
import { CorrectionStage, noteDangling } from './correction-stage.js';
import { planDeferral } from './deferral.js';
import { deferralInput, deferralSelection, lenientIf, withDeferral } from './deferral-stage.js';
import { sameDefinitions, type Exposure } from './exposure.js';
import { SelectionStage, type Chosen, type Narrow } from './selection-stage.js';
import type { CheckCache, Clock } from './check-cache.js';
import type { DescriptionTokens } from './descriptions.js';
import type { LayerIndex } from './layer-index.js';
import type { Registry } from './registry.js';
import type { SchemaRewriter } from './public-types.js';
import type { ResolvedConfig } from '../config/config.js';

/** What the pipeline needs from the host. */
export interface PipelineDeps {
  /** read only: the pipeline reads its plugin set and generation, and changes neither */
  registry: Registry;
  config: () => ResolvedConfig;
  cache: CheckCache;
  clock: Clock;
  availability: Omit<AvailabilityDeps, 'cache'>;
  rewriters: SchemaRewriter[];
  /** the description tokens the cross-reference guard reads, shared by a host and its views */
  tokens: DescriptionTokens;
  /** narrows layer 1's selection further (a view's own selection); records why for each tool it drops */
  narrow?: Narrow;
  /** called when this pipeline's exposed set changed, with its new generation */
  onChange(generation: number, exposure: Exposure): void;
  onWarning(message: string): void;
}

/** The verdicts of the last full computation and what they started from. */
interface LastVerdicts {
  chosen: Chosen;
  results: Availability[];
  /** no schema rewriter that must be asked again ran (see SchemaRewriter.pure), and none hid a tool */
  settled: boolean;
}

/** Computes and memoizes one surface's exposures. */
export class DefinitionsPipeline {
  /** the generation of the exposures it makes: bumped each time its definitions change */
  private generation = 1;
  /** the exposure current() serves while it holds; dropped by reset() */
  private memo: Exposure | undefined;
  /** the last exposure made, kept through reset(): a recompute that changes nothing hands back its lists */
  private previous: Exposure | undefined;
  private running: Promise<Exposure> | undefined;
  private verdicts: LastVerdicts | undefined;
  private readonly selection: SelectionStage;
  private correction: CorrectionStage | undefined;
  /** guard findings already passed to onWarning */
  private readonly warned = new Set<string>();

  constructor(private readonly deps: PipelineDeps) {
    this.selection = new SelectionStage(deps.registry, deps.rewriters, deps.availability.platform, deps.narrow);
  }

  /** The last computed exposure, without recomputing (may be stale). */
  get last(): Exposure | undefined {
    return this.memo;
  }

  /** The current exposure: memoized while the registry's plugin set holds and no check verdict expired. */
  current(): Promise<Exposure> {
    const { memo } = this;
    if (memo && memo.registryGeneration === this.deps.registry.generation && this.deps.clock.now() < memo.validUntil)
      return Promise.resolve(memo);
    this.running ??= this.compute().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Drops the memo so the next call recomputes (checks still come from the cache). */
  reset(): void {
    this.memo = undefined;
  }

  private async compute(): Promise<Exposure> {
    const { registry } = this.deps;
    const config = this.deps.config();
    const registryGeneration = registry.generation;
    const chosen = this.selection.select(config);
    const { toolsets } = chosen.selection;
    const warnings = [...chosen.selection.warnings];
    const { results, validUntil } = await evaluateAvailability(
      chosen.records,
      { ...this.deps.availability, cache: this.deps.cache },
      chosen.plan,
    );
    const { verdicts: last, previous } = this;
    if (last?.settled && previous && last.chosen === chosen && sameVerdicts(results, last.results)) {
      // Same selection, same verdicts: layer 3 would make what it made last time. Only the
      // verdicts were asked again (a checked tool's through the cache), so this costs their number.
      return this.settle({ ...previous, registryGeneration, validUntil }, false);
    }
    const { stateAt, states, available, availableAt } = startingStates(registry, chosen, results);
    const plan = planDeferral(
      deferralInput(registry, available, toolsets, config),
      deferralSelection(config),
      lenientIf(registry, warnings),
    );
    warnings.push(...plan.warnings);
    const correction = this.correctionFor(chosen.layer);
    const corrected = await correction.correct(availableAt, stateAt, plan.deferred);
    const { definitions, shown, deferred } = withDeferral(corrected.definitions, states, plan.deferred, config.search);
    // Deferral leaves layer 3's list as it is unless it adds tool_search (and hides a plugin's
    // tool of that name): then the exposed positions are read off the list.
    let exposedAt = corrected.exposedAt;
    const aligned = definitions === corrected.definitions;
    if (!aligned) {
      exposedAt = new Uint8Array(availableAt.length);
      for (const definition of definitions) {
        const at = chosen.layer.position.get(definition.name);
        if (at !== undefined) exposedAt[at] = 1;
      }
    }
    // Only the states whose tool layer 3 (or deferral) took out or put in differ from where they started.
    for (let at = 0; at < exposedAt.length; at++)
      if (exposedAt[at] !== availableAt[at]) stateAt[at]!.exposed = exposedAt[at] === 1;
    correction.guard(definitions, exposedAt, aligned, (name, dangling) =>
      this.warn(noteDangling(name, dangling, states, warnings)),
    );
    // Nothing changed: the same arrays as last time, so what is derived from them (a provider's format) is reused.
    const changed = previous !== undefined && !sameDefinitions(previous.definitions, definitions);
    const exposure: Exposure = {
      generation: this.generation,
      registryGeneration,
      validUntil,
      definitions: previous && !changed ? previous.definitions : definitions,
      shown: previous && sameDefinitions(previous.shown, shown) ? previous.shown : shown,
      deferred,
      states,
      toolsets,
      counts: {
        registered: registry.tools.size,
        selected: chosen.selection.selected.size,
        available: available.length,
        exposed: definitions.length,
      },
      warnings,
    };
    this.verdicts = { chosen, results, settled: corrected.settled };
    return this.settle(exposure, changed);
  }

  /** Makes `exposure` the memo, in a new generation if the definitions changed. */
  private settle(exposure: Exposure, changed: boolean): Exposure {
    if (changed) exposure.generation = ++this.generation;
    // The plugin set was replaced while computing: serve this one, recompute next time.
    if (exposure.registryGeneration !== this.deps.registry.generation) exposure.validUntil = -Infinity;
    this.memo = exposure;
    this.previous = exposure;
    if (changed) this.deps.onChange(exposure.generation, exposure);
    return exposure;
  }

  /** Layer 3 for `layer`'s plugin set: kept while the plugin set holds, with what it made last. */
  private correctionFor(layer: LayerIndex): CorrectionStage {
    if (this.correction?.layer !== layer)
      this.correction = new CorrectionStage(layer, this.deps.registry, this.deps.tokens);
    return this.correction;
  }

  private warn(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.deps.onWarning(message);
  }
}
