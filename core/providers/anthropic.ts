/**
 * Anthropic Messages API `tools` entries. `input_schema` must be an object
 * schema and may not have `anyOf`/`oneOf`/`allOf` at its top level; those
 * are merged or removed there (nested ones are fine). The schema goes out in
 * JSON Schema 2020-12, the dialect Anthropic reads (providers/dialect.ts). Dispatch still checks
 * arguments against the original schema.
 */
import { modelParameters } from './dialect.js';
import { objectRoot } from './json-schema.js';
import type { AnthropicCustomTool, AnthropicTool, AnthropicToolSearchTool, ToolDefinition } from './types.js';

/** `{ name, description, input_schema }` per tool; input_schema is always an object schema. */
export function toAnthropic(defs: readonly ToolDefinition[]): AnthropicCustomTool[] {
  return defs.map(anthropicTool);
}

function anthropicTool(d: ToolDefinition): AnthropicCustomTool {
  const tool: AnthropicCustomTool = {
    name: d.name,
    description: d.description,
    input_schema: objectRoot(modelParameters(d)),
  };
  // Anthropic's tool use examples; the API validates each against input_schema, as toolshed did at load.
  if (d.examples?.length) tool.input_examples = d.examples;
  return tool;
}

const SEARCH_TOOLS = {
  bm25: { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
  regex: { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' },
} as const satisfies Record<string, AnthropicToolSearchTool>;

/**
 * Anthropic's native deferral: Anthropic's tool search tool first, then every
 * tool, the deferred ones with `defer_loading: true`. The API searches and
 * loads them itself, so the list is the same for every session. `skip` names
 * toolshed's own search tool, which this form replaces.
 */
export function toAnthropicDeferred(
  defs: readonly ToolDefinition[],
  deferred: ReadonlySet<string>,
  variant: keyof typeof SEARCH_TOOLS,
  skip: string,
): AnthropicTool[] {
  const tools = defs
    .filter((d) => d.name !== skip)
    .map((d) => (deferred.has(d.name) ? { ...anthropicTool(d), defer_loading: true as const } : anthropicTool(d)));
  return [{ ...SEARCH_TOOLS[variant] }, ...tools];
}
