/**
 * OpenAI strict mode (`strict: true` function tools, Structured Outputs):
 * every property required, optional ones made nullable, objects closed with
 * `additionalProperties: false`, and only the supported keywords kept. A
 * schema strict mode cannot express (a free-form object, a map, an untyped
 * value, a tuple, an `unevaluatedProperties` map) is reported as unsupported so its tool goes out with
 * `strict: false` instead of a schema that would make it unusable.
 */
import type { JsonSchema } from '../../boundary/plugin-api.js';
import { appendNote, dependentRequiredNote, isSchema, mergeAllOf, objectRoot, typesOf } from './json-schema.js';

/** The strict-mode schema, or why the tool must go out non-strict. */
type StrictResult = { ok: true; schema: JsonSchema } | { ok: false; reason: string };

/** OpenAI documents 10 levels of object nesting as the strict-mode limit. */
const MAX_DEPTH = 10;

/** Keywords strict mode accepts; everything else is removed. */
const KEEP = new Set([
  'type',
  'description',
  'enum',
  'anyOf',
  'properties',
  'required',
  'additionalProperties',
  'items',
  '$ref',
  '$defs',
  'definitions',
  'pattern',
  'format',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'minItems',
  'maxItems',
]);

/** String formats strict mode accepts. */
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

class Unsupported extends Error {}

function fail(pointer: string, what: string): never {
  throw new Unsupported(`${pointer || '/'}: ${what}`);
}

function inferType(node: JsonSchema): string | undefined {
  if (isSchema(node.properties) || node.additionalProperties !== undefined) return 'object';
  if (node.items !== undefined) return 'array';
  if (Array.isArray(node.enum)) {
    const kinds = new Set(node.enum.map((v) => (v === null ? 'null' : Number.isInteger(v) ? 'integer' : typeof v)));
    kinds.delete('null');
    if (kinds.size === 1) return [...kinds][0] === 'number' ? 'number' : [...kinds][0];
    if (kinds.size === 2 && kinds.has('integer') && kinds.has('number')) return 'number';
  }
  return undefined;
}

/** Adds null to what the node accepts, so an optional property can be "absent" while required. */
function nullable(node: JsonSchema): JsonSchema {
  if (typeof node.$ref === 'string' || Array.isArray(node.anyOf)) {
    // A union (or a reference) gets a null member; the description stays outside so the model still reads it.
    const { description, ...rest } = node;
    const bare = Object.keys(rest).length === 1 && Array.isArray(rest.anyOf);
    const members = bare ? [...(rest.anyOf as JsonSchema[])] : [rest];
    if (!members.some((m) => typesOf(m).includes('null'))) members.push({ type: 'null' });
    return description === undefined ? { anyOf: members } : { description, anyOf: members };
  }
  const types = typesOf(node);
  if (types.includes('null')) return node;
  const out: JsonSchema = { ...node, type: [...types, 'null'] };
  // An enum lists every accepted value, so null must join it too.
  if (Array.isArray(node.enum) && !node.enum.includes(null)) out.enum = [...node.enum, null];
  return out;
}

function convert(input: unknown, pointer: string, depth: number): JsonSchema {
  if (!isSchema(input)) fail(pointer, 'a boolean schema has no type');
  if (depth > MAX_DEPTH) fail(pointer, `nested deeper than ${MAX_DEPTH} levels`);
  let node = mergeAllOf(input);
  if ('const' in node && !('enum' in node)) node = { ...node, enum: [node.const] };
  if (Array.isArray(node.oneOf) && !node.anyOf) node = { ...node, anyOf: node.oneOf };
  if (node.patternProperties !== undefined) fail(pointer, 'patternProperties is not supported');
  // Strict mode has no tuples: dropping prefixItems would leave the rest type as the type of every item.
  if (node.prefixItems !== undefined || Array.isArray(node.items))
    fail(pointer, 'a tuple (prefixItems) is not supported');
  if (isSchema(node.unevaluatedProperties)) fail(pointer, 'unevaluatedProperties (a map) is not supported');
  if (!node.type && !node.anyOf && !node.$ref) {
    const inferred = inferType(node);
    if (!inferred) fail(pointer, 'a value of any type cannot be expressed');
    node = { ...node, type: inferred };
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (!KEEP.has(key)) continue;
    if (key === 'format' && !FORMATS.has(String(value))) continue;
    if (key === 'properties' || key === 'required' || key === 'additionalProperties') continue; // rebuilt below
    if (key === 'items') {
      if (!isSchema(value)) fail(`${pointer}/items`, 'tuple or boolean items are not supported');
      out.items = convert(value, `${pointer}/items`, depth + 1);
    } else if (key === 'anyOf') {
      out.anyOf = (value as unknown[]).map((member, i) => convert(member, `${pointer}/anyOf/${i}`, depth + 1));
    } else if (key === '$defs' || key === 'definitions') {
      out[key] = Object.fromEntries(
        Object.entries(value as object).map(([name, def]) => [name, convert(def, `${pointer}/${key}/${name}`, depth)]),
      );
    } else {
      out[key] = value;
    }
  }
  if (typesOf(out).includes('array') && out.items === undefined) fail(pointer, 'an array needs an items schema');
  // Removed for strict mode, still enforced at dispatch; the model is told in words.
  const rules = dependentRequiredNote(node);
  if (rules) appendNote(out, rules);
  if (typesOf(out).includes('object')) Object.assign(out, closeObject(node, pointer, depth));
  return out;
}

function closeObject(node: JsonSchema, pointer: string, depth: number): JsonSchema {
  const properties = isSchema(node.properties) ? node.properties : {};
  if (!Object.keys(properties).length && node.additionalProperties !== false)
    fail(pointer, 'a free-form object (no properties) cannot be closed');
  if (isSchema(node.additionalProperties) || (node.additionalProperties === true && Object.keys(properties).length)) {
    fail(pointer, 'additionalProperties (a map) is not supported');
  }
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  const converted: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(properties)) {
    const child = convert(schema, `${pointer}/properties/${name}`, depth + 1);
    converted[name] = required.has(name) ? child : nullable(child);
  }
  return { properties: converted, required: Object.keys(converted), additionalProperties: false };
}

/**
 * Converts a tool's parameters for OpenAI strict mode, or says why it cannot.
 * @example
 * toStrictSchema({ type: 'object', properties: { n: { type: 'integer' } } })
 * // → { ok: true, schema: { type: 'object', properties: { n: { type: ['integer', 'null'] } }, required: ['n'],
 * additionalProperties: false } }
 */
export function toStrictSchema(parameters: JsonSchema): StrictResult {
  try {
    return { ok: true, schema: convert(objectRoot(parameters), '', 0) };
  } catch (error) {
    if (error instanceof Unsupported) return { ok: false, reason: error.message };
    throw error;
  }
}
