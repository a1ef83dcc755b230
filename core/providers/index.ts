/** Formats definitions for one provider. */
import { toAnthropic } from './anthropic.js';
import { toGemini } from './gemini.js';
import { toMcp } from './mcp.js';
import { toOpenAI, toResponses } from './openai.js';
import type { DefinitionFormat, ToolDefinition } from './types.js';

export { FORMATS, type DefinitionFormat, type ToolDefinition } from './types.js';

const formatters: Record<DefinitionFormat, (defs: readonly ToolDefinition[]) => unknown[]> = {
  openai: toOpenAI,
  responses: toResponses,
  anthropic: toAnthropic,
  gemini: toGemini,
  mcp: toMcp,
};

/** The `tools` array for `format`. */
export function formatDefinitions(defs: readonly ToolDefinition[], format: DefinitionFormat): unknown[] {
  return formatters[format](defs);
}
