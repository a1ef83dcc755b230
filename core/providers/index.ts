/** Formats definitions for one provider. */
import { toAnthropic } from './anthropic.js';
import { toGemini } from './gemini.js';
import { toMcp } from './mcp.js';
import { toOpenAI, toResponses } from './openai.js';
import type { DefinitionFormat, FormatOptions, ToolDefinition, ToolsByFormat } from './types.js';

export { FORMATS } from './types.js';
export type * from './types.js';

const formatters: {
  [F in DefinitionFormat]: (defs: readonly ToolDefinition[], options: FormatOptions) => ToolsByFormat[F][];
} = {
  openai: toOpenAI,
  responses: toResponses,
  anthropic: toAnthropic,
  gemini: toGemini,
  mcp: toMcp,
};

/** The `tools` array for `format`. */
export function formatDefinitions<F extends DefinitionFormat>(
  defs: readonly ToolDefinition[],
  format: F,
  options: FormatOptions = {},
): ToolsByFormat[F][] {
  return formatters[format](defs, options);
}
