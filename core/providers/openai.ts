/** OpenAI Chat Completions `tools` entries. */
import type { ToolDefinition } from './types.js';

/** `{ type: 'function', function: { name, description, parameters } }` per tool. */
export function toOpenAI(defs: readonly ToolDefinition[]): unknown[] {
  return defs.map((d) => ({ type: 'function', function: { name: d.name, description: d.description, parameters: d.parameters } }));
}

/** OpenAI Responses API `tools` entries: flat function tools. */
export function toResponses(defs: readonly ToolDefinition[]): unknown[] {
  return defs.map((d) => ({ type: 'function', name: d.name, description: d.description, parameters: d.parameters, strict: false }));
}
