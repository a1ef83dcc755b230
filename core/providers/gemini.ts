/**
 * Gemini function declarations. Gemini accepts an OpenAPI 3.0 subset of JSON
 * Schema: no `$ref`, `additionalProperties`, `const`, `oneOf`, `allOf`,
 * `$schema`, `default` or type arrays, enums of strings only, and a short
 * list of formats. Unsupported keywords are removed or translated (local
 * `$ref` inlined, const → enum, ["string","null"] → type + nullable, oneOf →
 * anyOf, allOf merged); arguments are still validated against the original
 * schema, so whatever is loosened here is still enforced at dispatch.
 */
import type { JsonSchema } from '../plugin.js';
import { isSchema, mergeAllOf, resolveLocalRef, typesOf } from './json-schema.js';
import type { GeminiTool, ToolDefinition } from './types.js';

const KEEP = new Set([
  'type', 'format', 'description', 'nullable', 'enum', 'properties', 'required', 'items', 'minItems', 'maxItems', 'minimum', 'maximum',
  'minLength', 'maxLength', 'pattern', 'anyOf', 'title', 'propertyOrdering', 'minProperties', 'maxProperties',
]);

/** The formats Gemini documents, by type; any other format is dropped. */
const FORMATS: Record<string, Set<string>> = {
  string: new Set(['enum', 'date-time']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};

/** How many times one `$ref` may be inlined inside itself before the recursion is cut. */
const MAX_REF_DEPTH = 3;

interface Walk {
  root: JsonSchema;
  /** refs being inlined on the current path, with their nesting count */
  refs: Map<string, number>;
}

/** Inlines a local $ref; a remote, dangling or too deeply recursive one becomes an open object. */
function inline(node: JsonSchema, walk: Walk): { node: JsonSchema; ref?: string } {
  const ref = node.$ref;
  if (typeof ref !== 'string') return { node };
  const target = resolveLocalRef(walk.root, ref);
  const seen = walk.refs.get(ref) ?? 0;
  const { $ref: _ref, ...siblings } = node;
  if (!target || seen >= MAX_REF_DEPTH) return { node: { type: 'object', ...siblings } };
  return { node: { ...target, ...siblings }, ref };
}

/** Splits a union into its non-null members and whether null was one of them. */
function withoutNull(members: unknown[]): { rest: JsonSchema[]; hadNull: boolean } {
  const rest = members.filter(isSchema).filter((m) => !(typesOf(m).length === 1 && typesOf(m)[0] === 'null'));
  return { rest, hadNull: rest.length !== members.filter(isSchema).length };
}

function normalize(input: JsonSchema): { node: JsonSchema; nullable: boolean } {
  let node = mergeAllOf(input);
  let isNullable = false;
  if ('const' in node && !('enum' in node)) node = { ...node, enum: [node.const] };
  if (Array.isArray(node.oneOf) && !node.anyOf) node = { ...node, anyOf: node.oneOf };
  if (Array.isArray(node.anyOf)) {
    const { rest, hadNull } = withoutNull(node.anyOf);
    isNullable ||= hadNull;
    const { anyOf: _anyOf, ...others } = node;
    // A union of one real member (typically "X or null") is just that member.
    node = rest.length === 1 ? { ...mergeAllOf(rest[0]!), ...others } : { ...others, anyOf: rest };
  }
  if (Array.isArray(node.type)) {
    const types = typesOf(node).filter((t) => t !== 'null');
    isNullable ||= types.length !== (node.type as unknown[]).length;
    node = { ...node, type: types[0] ?? 'string' };
    if (types.length > 1) node.anyOf = types.map((t) => ({ type: t }));
  }
  return { node, nullable: isNullable };
}

function enumOf(values: unknown[], type: unknown, out: JsonSchema): void {
  if (values.every((v) => typeof v === 'string') && (type === undefined || type === 'string')) {
    out.enum = values;
    out.type = 'string';
    return;
  }
  // Gemini enums are strings only; a typed enum keeps its type and states its values in words.
  const listed = values.filter((v) => v !== null).map((v) => JSON.stringify(v)).join(', ');
  out.description = `${out.description ? `${out.description} ` : ''}One of: ${listed}.`;
}

function reduce(input: unknown, walk: Walk): JsonSchema {
  if (!isSchema(input)) return { type: 'string' };
  const { node: resolved, ref } = inline(input, walk);
  if (ref) walk.refs.set(ref, (walk.refs.get(ref) ?? 0) + 1);
  try {
    // A reference to a reference: resolve the chain before reducing.
    if (ref && typeof resolved.$ref === 'string') return reduce(resolved, walk);
    const { node, nullable } = normalize(resolved);
    const out: JsonSchema = nullable ? { nullable: true } : {};
    for (const [key, value] of Object.entries(node)) {
      if (!KEEP.has(key) || key === 'enum') continue;
      if (key === 'properties' && isSchema(value)) {
        const entries = Object.entries(value).map(([k, v]) => [k, reduce(v, walk)] as const);
        // Gemini rejects an object schema whose properties are empty; an open object simply has none.
        if (entries.length) out.properties = Object.fromEntries(entries);
      } else if (key === 'items') {
        out.items = reduce(Array.isArray(value) ? value[0] : value, walk);
      } else if (key === 'anyOf' && Array.isArray(value)) {
        out.anyOf = value.map((member) => reduce(member, walk));
      } else if (key === 'format') {
        if (FORMATS[String(node.type)]?.has(String(value))) out.format = value;
      } else {
        out[key] = value;
      }
    }
    if (Array.isArray(node.enum)) enumOf(node.enum, node.type, out);
    if (Array.isArray(out.required)) {
      const props = (out.properties as Record<string, unknown> | undefined) ?? {};
      out.required = (out.required as string[]).filter((name) => name in props);
      if (!(out.required as string[]).length) delete out.required;
    }
    return out;
  } finally {
    if (ref) walk.refs.set(ref, walk.refs.get(ref)! - 1);
  }
}

/** Reduces one JSON Schema to what Gemini's function declarations accept. */
export function toGeminiSchema(schema: unknown): JsonSchema {
  if (!isSchema(schema)) return { type: 'string' };
  return reduce(schema, { root: schema, refs: new Map() });
}

/** `[{ functionDeclarations: [...] }]`, ready to pass as Gemini's `tools`. */
export function toGemini(defs: readonly ToolDefinition[]): GeminiTool[] {
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
