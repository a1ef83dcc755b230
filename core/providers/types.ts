/** The provider-neutral tool definition every format is made from. */
import type { JsonSchema } from '../plugin.js';

/** A tool as exposed to the model, before any provider's wrapping. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** The tool formats `definitions()` can produce. */
export type DefinitionFormat = 'openai' | 'responses' | 'anthropic' | 'gemini' | 'mcp';

/** Every supported format, for validation and help text. */
export const FORMATS: readonly DefinitionFormat[] = ['openai', 'responses', 'anthropic', 'gemini', 'mcp'];

/** Per-format switches; formats that have no such dialect ignore them. */
export interface FormatOptions {
  /** OpenAI strict mode (openai and responses formats) */
  strict?: boolean;
}
