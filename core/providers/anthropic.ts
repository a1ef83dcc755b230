/** Anthropic Messages API `tools` entries. */
import type { ToolDefinition } from './types.js';

/** `{ name, description, input_schema }` per tool; input_schema must be an object schema. */
export function toAnthropic(defs: readonly ToolDefinition[]): unknown[] {
  return defs.map((d) => ({ name: d.name, description: d.description, input_schema: { type: 'object', ...d.parameters } }));
}
