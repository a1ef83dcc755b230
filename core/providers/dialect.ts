/**
 * The schema every provider format starts from: JSON Schema 2020-12, the dialect the providers
 * (and MCP, untagged) read. A schema read in draft-07, draft-06 or 2019-09 has its older forms
 * rewritten to the 2020-12 keywords that mean the same (a tuple's `items` array becomes
 * `prefixItems`, `additionalItems` its `items`, `dependencies` becomes `dependentRequired` and
 * `dependentSchemas`) and loses its `$schema`; a 2020-12 schema is passed as it is. Nothing is
 * narrowed: dispatch still validates against the original, in its own dialect.
 */
import type { JsonSchema } from '../../boundary/plugin-api.js';
import { readDialect, SUBSCHEMA_KEYWORDS, type SchemaDialect } from '../schema/schema-dialect.js';
import { isSchema } from './json-schema.js';
import type { ToolDefinition } from './types.js';

/** Walked as they are; `additionalItems` is not: it becomes a tuple's `items` below. */
const ONE = SUBSCHEMA_KEYWORDS.one.filter((key) => key !== 'additionalItems');
const { list: LIST, map: MAP } = SUBSCHEMA_KEYWORDS;

function mapValues(value: Record<string, unknown>, fn: (child: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([name, child]) => [name, fn(child)]));
}

/** One node and everything below it, with draft-07 forms in their 2020-12 spelling. */
function rewrite(input: unknown, depth: number): unknown {
  if (!isSchema(input) || depth > 64) return input;
  const next = (child: unknown) => rewrite(child, depth + 1);
  const node: JsonSchema = { ...input };
  for (const key of ONE) if (key in node) node[key] = next(node[key]);
  for (const key of LIST) if (Array.isArray(node[key])) node[key] = (node[key] as unknown[]).map(next);
  for (const key of MAP) if (isSchema(node[key])) node[key] = mapValues(node[key], next);
  const { items, additionalItems } = node;
  delete node.additionalItems;
  if (Array.isArray(items)) {
    // A tuple: its members by position, then what any further item must be (open when unsaid).
    node.prefixItems = items.map(next);
    if (additionalItems !== undefined) node.items = next(additionalItems);
    else delete node.items;
  } else if (items !== undefined) {
    node.items = next(items);
  }
  if (isSchema(node.dependencies)) {
    const required: Record<string, unknown> = { ...(isSchema(node.dependentRequired) ? node.dependentRequired : {}) };
    const schemas: Record<string, unknown> = { ...(isSchema(node.dependentSchemas) ? node.dependentSchemas : {}) };
    for (const [name, dependency] of Object.entries(node.dependencies)) {
      if (Array.isArray(dependency)) required[name] = dependency;
      else schemas[name] = next(dependency);
    }
    delete node.dependencies;
    if (Object.keys(required).length) node.dependentRequired = required;
    if (Object.keys(schemas).length) node.dependentSchemas = schemas;
  }
  return node;
}

/**
 * `parameters` in JSON Schema 2020-12, given the dialect it was read in (read from the schema
 * itself by the plugin rule when not given). A 2020-12 schema comes back as the same object.
 * @example
 * to2020({ type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false }, 'draft-07')
 * // → { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false }
 */
export function to2020(parameters: JsonSchema, dialect?: SchemaDialect): JsonSchema {
  let read = dialect;
  if (!read) {
    try {
      read = readDialect(parameters, 'plugin').dialect;
    } catch {
      // A $schema toolshed does not validate: its calls fail at dispatch; the model still sees the schema.
      return parameters;
    }
  }
  if (read === '2020-12') return parameters;
  let rewritten = rewrites.get(parameters);
  if (!rewritten) {
    const { $schema: _schema, ...rest } = rewrite(parameters, 0) as JsonSchema;
    rewrites.set(parameters, (rewritten = rest));
  }
  return rewritten;
}

/**
 * Rewrites by the schema object they were made from: every format of every exposure of a tool
 * (its manifest's schema is one object while it is listed) shares one, and the definitions
 * stay equal by reference from one recompute to the next.
 */
const rewrites = new WeakMap<JsonSchema, JsonSchema>();

/** A definition's parameters in 2020-12, the form every provider format starts from. */
export function modelParameters(d: ToolDefinition): JsonSchema {
  return to2020(d.parameters, d.dialect);
}
