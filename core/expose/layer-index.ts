/**
 * What the pipeline derives once per plugin set: the registered tools by
 * position, and what each recompute reads by position (names, toolsets, which
 * descriptions mention which tools, which tools a schema rewriter applies to).
 *
 * Every per-compute table is an array indexed by a tool's position in
 * `records` (registry order), walked in order: at thousands of tools a lookup
 * by name in a hash table misses the CPU's caches, where a walk along an
 * array does not, and a recompute costs a few such lookups per tool at most.
 */
import { toolInfo } from './tool-info.js';
import type { SchemaRewriter, ToolInfo } from './public-types.js';
import type { Registry } from './registry.js';
import type { ToolRecord } from '../load/types.js';

/** The tables of one plugin set. */
export interface LayerIndex {
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
  /** every registered tool as a rewriter sees it, by name (built when a rewriter first runs) */
  infos(): ReadonlyMap<string, ToolInfo>;
}

/** The index of `registry`'s current plugin set. */
export function layerIndex(registry: Registry, rewriters: readonly SchemaRewriter[]): LayerIndex {
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
    if (!rewriters.length) return;
    const info = toolInfo(record);
    const rewriter = rewriters.find((r) => r.appliesTo(info));
    if (rewriter) rewritten.push({ at, rewriter });
  });
  const byName = records
    .map((_, at) => at)
    .sort((a, b) => (records[a]!.name < records[b]!.name ? -1 : records[a]!.name > records[b]!.name ? 1 : 0));
  let infos: ReadonlyMap<string, ToolInfo> | undefined;
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
    infos: () => (infos ??= new Map(records.map((record) => [record.name, toolInfo(record)]))),
  };
}

/** The exposed set as `resolveDescription` reads it: a flag per position. */
export class ExposedFlags {
  constructor(
    private readonly layer: LayerIndex,
    private readonly at: Uint8Array,
  ) {}

  has(name: string): boolean {
    const at = this.layer.position.get(name);
    return at !== undefined && this.at[at] === 1;
  }
}
