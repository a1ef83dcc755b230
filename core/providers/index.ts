/** Formats definitions for one provider. */
import { toAnthropic } from './anthropic.js';
import { toGemini } from './gemini.js';
import { toMcp } from './mcp.js';
import { toOpenAI, toResponses } from './openai.js';
import type { DefinitionFormat, FormatOptions, ToolDefinition } from './types.js';

export { FORMATS, type DefinitionFormat, type FormatOptions, type ToolDefinition } from './types.js';

const formatters: Record<DefinitionFormat, (defs: readonly ToolDefinition[], options: FormatOptions) => unknown[]> = {
  openai: toOpenAI,
  responses: toResponses,
  anthropic: toAnthropic,
  gemini: toGemini,
  mcp: toMcp,
};

/** The `tools` array for `format`. */
export function formatDefinitions(defs: readonly ToolDefinition[], format: DefinitionFormat, options: FormatOptions = {}): unknown[] {
  return formatters[format](defs, options);
}
