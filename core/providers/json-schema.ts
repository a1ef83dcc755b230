/**
 * Small JSON Schema helpers the provider sanitizers share: node tests, local
 * `$ref` lookup and the `allOf` merge. They never validate anything: the
 * tool's original schema stays the one dispatch validates against.
 */
import type { JsonSchema } from '../../boundary/plugin-api.js';

/** True for a schema object (not a boolean schema, an array or null). */
export function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `type` keyword as a list ([] when absent). */
export function typesOf(node: JsonSchema): string[] {
  const type = node.type;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

/**
 * Resolves a local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`, any JSON
 * pointer into the root); undefined for remote refs and dangling pointers.
 */
export function resolveLocalRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchema(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return isSchema(node) ? node : undefined;
}

/**
 * Folds `allOf` members that are plain schemas into the node: properties and
 * required lists are united, other keywords keep the node's own value first.
 * Members that are not schema objects are dropped (that only loosens the
 * model-facing schema; dispatch still validates against the original).
 */
export function mergeAllOf(node: JsonSchema): JsonSchema {
  if (!Array.isArray(node.allOf)) return node;
  const { allOf, ...rest } = node;
  let out: JsonSchema = { ...rest };
  for (const member of allOf as unknown[]) {
    if (!isSchema(member)) continue;
    const flat = mergeAllOf(member);
    // The node's own properties come first and win; members add the ones it lacks, in order.
    const properties: Record<string, unknown> = { ...(out.properties as object | undefined) };
    for (const [name, schema] of Object.entries((flat.properties as object | undefined) ?? {}))
      if (!(name in properties)) properties[name] = schema;
    const required = [
      ...new Set([
        ...((out.required as string[] | undefined) ?? []),
        ...((flat.required as string[] | undefined) ?? []),
      ]),
    ];
    out = { ...flat, ...out };
    if (Object.keys(properties).length) out.properties = properties;
    if (required.length) out.required = required;
  }
  return out;
}

/**
 * Makes the root an object schema, as Anthropic's `input_schema` and OpenAI
 * strict mode require: `type: 'object'`, `allOf` merged in, and root-level
 * `anyOf`/`oneOf`/`not` removed (both providers reject them at the top level).
 */
export function objectRoot(schema: JsonSchema): JsonSchema & { type: 'object' } {
  const { anyOf: _anyOf, oneOf: _oneOf, not: _not, ...rest } = mergeAllOf(schema);
  return { ...rest, type: 'object' };
}

/**
 * `dependentRequired` in words, for formats that cannot express it (dispatch enforces it);
 * undefined when the node has none.
 * @example dependentRequiredNote({ dependentRequired: { a: ['b'] } }) // 'If "a" is given, "b" must be given too.'
 */
export function dependentRequiredNote(node: JsonSchema): string | undefined {
  if (!isSchema(node.dependentRequired)) return undefined;
  const rules = Object.entries(node.dependentRequired)
    .filter((entry): entry is [string, string[]] => Array.isArray(entry[1]) && entry[1].length > 0)
    .map(
      ([name, needs]) =>
        `if ${JSON.stringify(name)} is given, ${needs.map((n) => JSON.stringify(n)).join(' and ')} must be given too`,
    );
  return rules.length ? `${rules.join('; ').replace(/^./, (c) => c.toUpperCase())}.` : undefined;
}

/** Adds a sentence to a node's description, after a full stop. */
export function appendNote(node: JsonSchema, note: string): void {
  const before = typeof node.description === 'string' ? node.description.trimEnd() : '';
  node.description = before ? `${before}${/[.!?:]$/.test(before) ? '' : '.'} ${note}` : note;
}
