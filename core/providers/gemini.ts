/**
 * Gemini function declarations. Gemini accepts an OpenAPI 3.0 subset of JSON
 * Schema: no `$ref`, `additionalProperties`, `const`, `oneOf`, `allOf`,
 * `$schema`, `default` or type arrays. Unsupported keywords are removed or
 * translated (const → enum, ["string","null"] → type + nullable); arguments
 * are still validated against the original schema.
 */
import type { JsonSchema } from '../plugin.js';
import type { ToolDefinition } from './types.js';

const KEEP = new Set([
  'type', 'format', 'description', 'nullable', 'enum', 'properties', 'required', 'items',
  'minItems', 'maxItems', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'anyOf', 'title', 'propertyOrdering',
]);
const STRING_FORMATS = new Set(['enum', 'date-time']);

/** Reduces one JSON Schema to what Gemini's function declarations accept. */
export function toGeminiSchema(schema: unknown): JsonSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { type: 'string' };
  const input = { ...(schema as Record<string, unknown>) };
  const out: JsonSchema = {};
  if ('const' in input && !('enum' in input)) input.enum = [input.const];
  if (input.oneOf && !input.anyOf) input.anyOf = input.oneOf;
  if (Array.isArray(input.type)) {
    const types = (input.type as string[]).filter((t) => t !== 'null');
    if (types.length !== input.type.length) out.nullable = true;
    input.type = types[0] ?? 'string';
    if (types.length > 1) input.anyOf = types.map((t) => ({ type: t }));
  }
  for (const [key, value] of Object.entries(input)) {
    if (!KEEP.has(key)) continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toGeminiSchema(v)]));
    } else if (key === 'items') {
      out.items = toGeminiSchema(value);
    } else if (key === 'anyOf' && Array.isArray(value)) {
      out.anyOf = value.map(toGeminiSchema);
    } else if (key === 'enum' && Array.isArray(value)) {
      // Gemini enums are strings only.
      out.enum = value.map(String);
      if (!input.type) out.type = 'string';
    } else if (key === 'format') {
      if (input.type !== 'string' || STRING_FORMATS.has(String(value))) out.format = value;
    } else {
      out[key] = value;
    }
  }
  if (out.enum && out.type && out.type !== 'string') {
    out.type = 'string';
  }
  if (out.type === 'object' && out.properties && Array.isArray(out.required)) {
    const props = out.properties as Record<string, unknown>;
    out.required = (out.required as string[]).filter((name) => name in props);
  }
  return out;
}

/** `[{ functionDeclarations: [...] }]`, ready to pass as Gemini's `tools`. */
export function toGemini(defs: readonly ToolDefinition[]): unknown[] {
  if (!defs.length) return [];
  return [
    {
      functionDeclarations: defs.map((d) => {
        const parameters = toGeminiSchema({ type: 'object', ...d.parameters });
        const props = parameters.properties as Record<string, unknown> | undefined;
        // Gemini rejects an object schema with empty properties; omit parameters instead.
        return props && Object.keys(props).length ? { name: d.name, description: d.description, parameters } : { name: d.name, description: d.description };
      }),
    },
  ];
}
