/**
 * The read-only view of a tool a schema rewriter gets (`RewriterTool`): its name, plugin, toolset,
 * annotations and whether code may call it, copied and frozen, never the registry record (which
 * holds its plugin's runner: a rewriter holding one could run the tool past dispatch, hooks and
 * approval). One view per record, made when first asked for.
 */
import type { RewriterTool } from './public-types.js';
import type { ToolRecord } from '../load/types.js';

const views = new WeakMap<ToolRecord, RewriterTool>();

/** The view of `record`. */
export function toolView(record: ToolRecord): RewriterTool {
  let view = views.get(record);
  if (!view) {
    const { manifest } = record;
    view = Object.freeze({ name: record.name, plugin: record.plugin.source.name, toolset: manifest.toolset, codeCallable: manifest.codeCallable, annotations: Object.freeze({ ...manifest.annotations }) });
    views.set(record, view);
  }
  return view;
}

/** `records` seen through their views, without copying the map: what a rewriter's context lists. */
export class ToolViews implements ReadonlyMap<string, RewriterTool> {
  constructor(private readonly records: ReadonlyMap<string, ToolRecord>) {}

  get size(): number {
    return this.records.size;
  }

  get(name: string): RewriterTool | undefined {
    const record = this.records.get(name);
    return record && toolView(record);
  }

  has(name: string): boolean {
    return this.records.has(name);
  }

  forEach(callback: (view: RewriterTool, name: string, map: ReadonlyMap<string, RewriterTool>) => void, thisArg?: unknown): void {
    for (const [name, view] of this.entries()) callback.call(thisArg, view, name, this);
  }

  *entries(): MapIterator<[string, RewriterTool]> {
    for (const [name, record] of this.records) yield [name, toolView(record)];
  }

  keys(): MapIterator<string> {
    return this.records.keys() as MapIterator<string>;
  }

  *values(): MapIterator<RewriterTool> {
    for (const record of this.records.values()) yield toolView(record);
  }

  [Symbol.iterator](): MapIterator<[string, RewriterTool]> {
    return this.entries();
  }
}
