/**
 * Anthropic Messages API `tools` entries. `input_schema` must be an object
 * schema and may not have `anyOf`/`oneOf`/`allOf` at its top level; those
 * are merged or removed there (nested ones are fine). Dispatch still checks
 * arguments against the original schema.
 */
import { objectRoot } from './json-schema.js';
import type { AnthropicTool, ToolDefinition } from './types.js';

/** `{ name, description, input_schema }` per tool; input_schema is always an object schema. */
export function toAnthropic(defs: readonly ToolDefinition[]): AnthropicTool[] {
  return defs.map((d) => ({ name: d.name, description: d.description, input_schema: objectRoot(d.parameters) }));
}
