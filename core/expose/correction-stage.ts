/**
 * Layer 3 for one plugin set: conditional description parts resolved against
 * the exposed set, then the schema rewriters, then the cross-reference guard.
 * What it made last is kept by position (each tool's plain definition, the
 * exposed set those were resolved against, what each description mentions),
 * so a recompute after one check flipped re-resolves and re-reads only the
 * few descriptions that can have changed. A new plugin set gets a new stage.
 */
import { danglingReferences, resolveDescription, type DescriptionTokens } from './descriptions.js';
import { ExposedFlags, type LayerIndex } from './layer-index.js';
import type { ToolState } from './public-types.js';
import type { Registry } from './registry.js';
import type { ToolStates } from './tool-states.js';
import type { ToolDefinition } from '../providers/types.js';

/** What layer 3 made: the definitions, sorted by name, and which positions they are. */
interface Corrected {
  definitions: ToolDefinition[];
  exposedAt: Uint8Array;
  /** no schema rewriter that must be asked again ran (see SchemaRewriter.pure), and none hid a tool */
  settled: boolean;
}

/** Layer 3 over one plugin set's index. */
export class CorrectionStage {
  /** the plain definition last made for each position (see definition()) */
  private readonly plainAt: Array<ToolDefinition | undefined> = [];
  /** for each position: the definition last guarded there and the positions of the tools it mentions */
  private readonly mentionsAt: Array<{ def: ToolDefinition; positions: number[] } | undefined> = [];
  /** the exposed flags the plain definitions were last resolved against */
  private lastExposedAt: Uint8Array | undefined;

  constructor(
    readonly layer: LayerIndex,
    private readonly registry: Registry,
    /** the description tokens the guard reads, shared by a host and its views */
    private readonly tokens: DescriptionTokens,
  ) {}

  /**
   * Conditional description parts, then the schema rewriters, sorted by name. A rewriter that
   * hides a tool sets its state (layer `schema`); `availableAt` is not written.
   */
  async correct(availableAt: Uint8Array, stateAt: ToolState[], deferred: ReadonlySet<string>): Promise<Corrected> {
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
      const records = layer.infos();
      let hidden: number[] | undefined;
      for (const { at, rewriter } of rewritten) {
        const name = layer.names[at]!;
        const outcome = await rewriter.rewrite(defs.get(name)!, { exposed: defs, records, deferred });
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
      if (!hidden || pass === 1)
        return {
          definitions: [...defs.values()],
          exposedAt,
          settled: !hidden && rewritten.every(({ rewriter }) => rewriter.pure === true),
        };
    }
    return { definitions: [], exposedAt, settled: false };
  }

  /**
   * Cross-reference guard: a description naming a registered tool that is not exposed is a
   * warning, passed to `warn`. Each description text is tokenized once (DescriptionTokens, shared
   * with the host's views) and what it mentions is kept by position with its definition, so a
   * recompute then reads only the exposed flags of the few tools each description mentions.
   * `aligned`: `defs` are layer 3's own list, the exposed positions in name order.
   */
  guard(
    defs: ToolDefinition[],
    exposedAt: Uint8Array,
    aligned: boolean,
    warn: (name: string, dangling: string[]) => void,
  ): void {
    const { records, byName } = this.layer;
    if (!exposedAt.includes(0)) return;
    if (aligned) {
      let next = 0;
      for (const at of byName) {
        if (exposedAt[at] !== 1) continue;
        const def = defs[next++]!;
        let dangling: string[] | undefined;
        for (const mentioned of this.mentions(at, def))
          if (mentioned !== at && exposedAt[mentioned] !== 1) (dangling ??= []).push(records[mentioned]!.name);
        if (dangling) warn(def.name, dangling.sort());
      }
      return;
    }
    const hidden = new Set<string>();
    for (let at = 0; at < records.length; at++) if (exposedAt[at] !== 1) hidden.add(records[at]!.name);
    for (const def of defs) {
      const dangling = danglingReferences(this.tokens.of(def, this.registry.toolNames), def.name, hidden);
      if (dangling.length) warn(def.name, dangling);
    }
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
   * The plain definition of the tool at `at` against `exposed`: the previous object when
   * nothing in it changed, so a recompute allocates little and change detection compares by reference.
   */
  private definition(at: number, exposed: ExposedFlags): ToolDefinition {
    const record = this.layer.records[at]!;
    const description = resolveDescription(record.manifest.description, exposed);
    const previous = this.plainAt[at];
    if (previous && previous.description === description && previous.parameters === record.manifest.parameters)
      return previous;
    const def: ToolDefinition = { name: record.name, description, parameters: record.manifest.parameters };
    const { manifest } = record;
    if (Object.keys(manifest.annotations).length) def.annotations = manifest.annotations;
    if (manifest.title !== undefined) def.title = manifest.title;
    if (manifest.icons) def.icons = manifest.icons;
    if (manifest.outputSchema) def.outputSchema = manifest.outputSchema;
    if (manifest.examples?.length) def.examples = manifest.examples;
    if (record.manifest.dialect) def.dialect = record.manifest.dialect.dialect;
    if (record.manifest.longRunning) def.longRunning = true;
    if (record.manifest.meta) def.meta = record.manifest.meta;
    this.plainAt[at] = def;
    return def;
  }

  /** The positions of the registered tools `def` (the definition at `at`) mentions. */
  private mentions(at: number, def: ToolDefinition): readonly number[] {
    const kept = this.mentionsAt[at];
    if (kept?.def === def) return kept.positions;
    const { position } = this.layer;
    const positions: number[] = [];
    for (const name of this.tokens.of(def, this.registry.toolNames)) {
      const mentioned = position.get(name);
      if (mentioned !== undefined) positions.push(mentioned);
    }
    this.mentionsAt[at] = { def, positions };
    return positions;
  }
}

/** Adds a guard finding to the tool's state and the exposure's warnings; returns the message. */
export function noteDangling(name: string, dangling: string[], states: ToolStates, warnings: string[]): string {
  const message =
    `description of ${name} mentions ${dangling.join(', ')}, which ${dangling.length > 1 ? 'are' : 'is'} not ` +
    `exposed`;
  const state = states.get(name);
  if (state) state.warnings = [...state.warnings, message];
  warnings.push(message);
  return message;
}
