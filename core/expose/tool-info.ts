/**
 * The read-only view of a registry record that schema rewriters are handed
 * (ToolInfo, public-types.ts): made once per record and frozen.
 */
import type { ToolInfo } from './public-types.js';
import type { ToolRecord } from '../load/types.js';

/** One view per record, shared by a host's pipelines (a record lives as long as its plugin set). */
const infos = new WeakMap<ToolRecord, ToolInfo>();

/** The read-only view of `record` a rewriter is handed. */
export function toolInfo(record: ToolRecord): ToolInfo {
  let info = infos.get(record);
  if (!info) {
    const { manifest, plugin } = record;
    info = Object.freeze({
      name: record.name,
      plugin: plugin.source.name,
      toolset: manifest.toolset,
      description: manifest.description,
      parameters: manifest.parameters,
      annotations: manifest.annotations,
      ...(manifest.title !== undefined ? { title: manifest.title } : {}),
      ...(manifest.icons ? { icons: manifest.icons } : {}),
      ...(manifest.outputSchema ? { outputSchema: manifest.outputSchema } : {}),
      ...(manifest.examples ? { examples: manifest.examples } : {}),
      codeCallable: manifest.codeCallable,
      longRunning: manifest.longRunning === true,
      trust: plugin.source.trust,
      ...(manifest.title !== undefined ? { title: manifest.title } : {}),
      ...(manifest.icons ? { icons: manifest.icons } : {}),
      ...(manifest.outputSchema ? { outputSchema: manifest.outputSchema } : {}),
      ...(manifest.meta ? { meta: manifest.meta } : {}),
    });
    infos.set(record, info);
  }
  return info;
}
