/**
 * Gemini function declarations. Gemini accepts an OpenAPI 3.0 subset of JSON
 * Schema: no `$ref`, `additionalProperties`, `const`, `oneOf`, `allOf`,
 * `$schema`, `default` or type arrays, enums of strings only, and a short
 * list of formats. Unsupported keywords are removed or translated (local
 * `$ref` inlined, const → enum, ["string","null"] → type + nullable, oneOf →
 * anyOf, allOf merged, a tuple widened to an `anyOf` of its member types with
 * its positions in the description, `dependentRequired` said in words); arguments
 * are still validated against the original schema, so whatever is loosened here
 * is still enforced at dispatch.
 */
import { describedWithExamples } from './examples.js';
import type { JsonSchema } from '../../boundary/plugin-api.js';
import { appendNote, dependentRequiredNote, isSchema, mergeAllOf, resolveLocalRef, typesOf } from './json-schema.js';
import type { GeminiTool, ToolDefinition } from './types.js';
import { modelParameters } from './dialect.js';

const KEEP = new Set([
  'type',
  'format',
  'description',
  'nullable',
  'enum',
  'properties',
  'required',
  'items',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'anyOf',
  'title',
  'propertyOrdering',
  'minProperties',
  'maxProperties',
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
  const listed = values
    .filter((v) => v !== null)
    .map((v) => JSON.stringify(v))
    .join(', ');
  out.description = `${out.description ? `${out.description} ` : ''}One of: ${listed}.`;
}

/** A tuple's members by position and what any further item must be (`undefined`: anything; `false`: none). */
function tupleOf(node: JsonSchema): { members: unknown[]; rest: unknown } | undefined {
  if (Array.isArray(node.prefixItems)) return { members: node.prefixItems, rest: node.items };
  // A draft-07 tuple, for a schema reduced without the 2020-12 rewrite (providers/dialect.ts).
  if (Array.isArray(node.items)) return { members: node.items, rest: node.additionalItems };
  return undefined;
}

/** A member's type in a few words, for the positions note: `string`, `"a" or "b"`, `number (the count)`. */
function typeLabel(schema: JsonSchema): string {
  let label = 'any value';
  if (Array.isArray(schema.enum)) label = schema.enum.map((v) => JSON.stringify(v)).join(' or ');
  else if (typeof schema.type === 'string')
    label = schema.type === 'array' && isSchema(schema.items) ? `array of ${typeLabel(schema.items)}` : schema.type;
  else if (Array.isArray(schema.anyOf)) label = schema.anyOf.filter(isSchema).map(typeLabel).join(' or ');
  if (schema.nullable === true) label += ' or null';
  return typeof schema.description === 'string' && schema.description ? `${label} (${schema.description})` : label;
}

/**
 * Gemini has no tuples. Widened honestly: every item may be any of the member types (an `anyOf`
 * of them, or the one type they share), the length kept where the tuple is closed, and the
 * positions said in the description. Dispatch still checks each position.
 */
function reduceTuple(tuple: { members: unknown[]; rest: unknown }, walk: Walk, out: JsonSchema): void {
  const members = tuple.members.map((member) => reduce(member, walk));
  const rest = isSchema(tuple.rest) ? reduce(tuple.rest, walk) : undefined;
  const distinct = new Map<string, JsonSchema>();
  for (const member of [...members, ...(rest ? [rest] : [])]) {
    const { description: _description, ...shape } = member;
    distinct.set(JSON.stringify(shape), shape);
  }
  const kinds = [...distinct.values()];
  out.items = kinds.length === 1 ? kinds[0]! : kinds.length ? { anyOf: kinds } : { type: 'string' };
  if (tuple.rest === false)
    out.maxItems = Math.min(typeof out.maxItems === 'number' ? out.maxItems : members.length, members.length);
  const positions = members.map((member, i) => `${i + 1}: ${typeLabel(member)}`).join('; ');
  const after =
    tuple.rest === false ? '' : rest ? `, then any number of ${typeLabel(rest)}` : ', then items of any type';
  appendNote(out, `A list in this order (position: type): ${positions}${after}.`);
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
        if (!tupleOf(node)) out.items = reduce(value, walk);
      } else if (key === 'anyOf' && Array.isArray(value)) {
        out.anyOf = value.map((member) => reduce(member, walk));
      } else if (key === 'format') {
        if (FORMATS[String(node.type)]?.has(String(value))) out.format = value;
      } else {
        out[key] = value;
      }
    }
    const tuple = tupleOf(node);
    if (tuple) reduceTuple(tuple, walk, out);
    const rules = dependentRequiredNote(node);
    if (rules) appendNote(out, rules);
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
        const parameters = toGeminiSchema({ type: 'object', ...modelParameters(d) });
        const props = parameters.properties as Record<string, unknown> | undefined;
        // Gemini rejects an object schema with empty properties; omit parameters instead.
        const description = describedWithExamples(d);
        return props && Object.keys(props).length
          ? { name: d.name, description, parameters }
          : { name: d.name, description };
      }),
    },
  ];
}
