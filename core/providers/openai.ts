/**
 * OpenAI `tools` entries for Chat Completions and the Responses API. By
 * default the tool's schema is sent as is (in 2020-12: providers/dialect.ts) with `strict` unset (Chat) or
 * false (Responses); with `strict: true` each schema is converted for strict
 * mode, and a tool whose schema cannot be goes out with `strict: false`.
 */
import { modelParameters } from './dialect.js';
import { toStrictSchema } from './openai-strict.js';
import { describedWithExamples } from './examples.js';
import type { FormatOptions, OpenAITool, ResponsesTool, ToolDefinition } from './types.js';
import type { JsonSchema } from '../../boundary/plugin-api.js';

function strictParts(d: ToolDefinition): { parameters: JsonSchema; strict: boolean } {
  const parameters = modelParameters(d);
  const converted = toStrictSchema(parameters);
  return converted.ok ? { parameters: converted.schema, strict: true } : { parameters, strict: false };
}

/** `{ type: 'function', function: { name, description, parameters, strict? } }` per tool. */
export function toOpenAI(defs: readonly ToolDefinition[], options: FormatOptions = {}): OpenAITool[] {
  return defs.map((d) => ({
    type: 'function' as const,
    function: options.strict
      ? { name: d.name, description: describedWithExamples(d), ...strictParts(d) }
      : { name: d.name, description: describedWithExamples(d), parameters: modelParameters(d) },
  }));
}

/** OpenAI Responses API `tools` entries: flat function tools. */
export function toResponses(defs: readonly ToolDefinition[], options: FormatOptions = {}): ResponsesTool[] {
  return defs.map((d) => ({
    type: 'function' as const,
    name: d.name,
    description: describedWithExamples(d),
    ...(options.strict ? strictParts(d) : { parameters: modelParameters(d), strict: false }),
  }));
}
