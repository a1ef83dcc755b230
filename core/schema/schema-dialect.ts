/**
 * Which JSON Schema dialect a schema is written in: the one its `$schema` names, or, untagged,
 * the one its keywords say (a plugin's rule) or MCP's default (2020-12). The keyword-aware walk
 * over subschemas lives here too: the provider formats translate with it.
 */
import { escapePointer } from '../../boundary/json-pointer.js';

/** The JSON Schema dialects toolshed validates, each with ajv's own class. */
export type SchemaDialect = 'draft-06' | 'draft-07' | '2019-09' | '2020-12';

/** The `$schema` URI of each dialect, as ajv registers its meta-schema. */
export const DIALECT_URIS: Readonly<Record<SchemaDialect, string>> = {
  'draft-06': 'http://json-schema.org/draft-06/schema#',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
};

/** For messages: every supported `$schema`. */
const SUPPORTED_DIALECTS = 'draft-06, draft-07, 2019-09 and 2020-12';

/** A `$schema` naming a dialect toolshed does not validate (draft-04, a custom meta-schema). */
export class UnknownDialectError extends Error {
  constructor(readonly uri: unknown) {
    super(
      `$schema ${JSON.stringify(uri)} is not a JSON Schema dialect toolshed validates; supported: ` +
        `${SUPPORTED_DIALECTS} (${Object.values(DIALECT_URIS).join(', ')}), or no $schema`,
    );
    this.name = 'UnknownDialectError';
  }
}

/** The dialect a schema is read in, and why (for explain). */
export interface DialectReading {
  dialect: SchemaDialect;
  /** `$schema`, or how an untagged schema was read: "untagged: …" */
  from: string;
}

/** How an untagged schema is read: by the plugin rule (its keywords), or as MCP's default, 2020-12. */
type UntaggedRule = 'plugin' | 'mcp';

/**
 * The dialect a `$schema` URI names (http or https, with or without the empty fragment); undefined when it names none.
 */
function dialectOfUri(uri: string): SchemaDialect | undefined {
  const match = /^https?:\/\/json-schema\.org\/(draft-0[67]\/schema|draft\/(?:2019-09|2020-12)\/schema)#?$/.exec(uri);
  if (!match) return undefined;
  const path = match[1]!;
  if (path.startsWith('draft-06')) return 'draft-06';
  if (path.startsWith('draft-07')) return 'draft-07';
  return path.includes('2019-09') ? '2019-09' : '2020-12';
}

/**
 * The keywords that hold subschemas, by shape, in every supported dialect, except `items`
 * (one subschema, or a draft-07 tuple's list) and draft-07 `dependencies` (a subschema or a
 * list of names), which each reader handles itself.
 */
export const SUBSCHEMA_KEYWORDS = {
  /** keywords whose value is one subschema */
  one: [
    'additionalItems',
    'additionalProperties',
    'not',
    'if',
    'then',
    'else',
    'contains',
    'propertyNames',
    'unevaluatedItems',
    'unevaluatedProperties',
    'contentSchema',
  ],
  /** keywords whose value is a list of subschemas */
  list: ['allOf', 'anyOf', 'oneOf', 'prefixItems'],
  /** keywords whose value is a map of name → subschema */
  map: ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'],
} as const;
const { one: ONE, list: LIST, map: MAP } = SUBSCHEMA_KEYWORDS;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Calls `visit` on `node` and every subschema below it, by keyword (so a property named
 * `items` is not mistaken for the keyword), with its JSON pointer. Values of `enum`, `const`,
 * `default` and `examples` are data, never walked.
 */
function walkSchemas(
  node: unknown,
  visit: (schema: Record<string, unknown>, pointer: string) => void,
  pointer = '',
  depth = 0,
): void {
  if (!isObject(node) || depth > 64) return;
  visit(node, pointer);
  const next = (child: unknown, at: string) => walkSchemas(child, visit, at, depth + 1);
  for (const key of ONE) if (key in node) next(node[key], `${pointer}/${key}`);
  for (const key of LIST)
    if (Array.isArray(node[key])) (node[key] as unknown[]).forEach((child, i) => next(child, `${pointer}/${key}/${i}`));
  for (const key of MAP)
    if (isObject(node[key]))
      for (const [name, child] of Object.entries(node[key])) next(child, `${pointer}/${key}/${escapePointer(name)}`);
  if (Array.isArray(node.items)) node.items.forEach((child, i) => next(child, `${pointer}/items/${i}`));
  else next(node.items, `${pointer}/items`);
  // draft-07 `dependencies`: a value is a list of names or a subschema.
  if (isObject(node.dependencies))
    for (const [name, child] of Object.entries(node.dependencies))
      next(child, `${pointer}/dependencies/${escapePointer(name)}`);
}

/** Keywords only draft-07 (and draft-06) give a meaning: 2020-12 ignores them, or cannot read them. */
function draft07Form(node: Record<string, unknown>): string | undefined {
  if (Array.isArray(node.items)) return 'items as an array';
  if ('additionalItems' in node) return 'additionalItems';
  if (isObject(node.dependencies)) return 'dependencies';
  return undefined;
}

/**
 * Keywords only 2019-09 and 2020-12 give a meaning (`$defs` is left out: draft-07 resolves `#/$defs/x` as a pointer
 * too).
 */
const NEW_KEYWORDS = [
  'prefixItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'dependentRequired',
  'dependentSchemas',
  'minContains',
  'maxContains',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$recursiveRef',
  '$recursiveAnchor',
];

/** The first draft-07-only form and the first 2019-09/2020-12-only keyword in a schema, with where. */
function forms(schema: object): { old?: string; new?: string; recursive: boolean } {
  const found: { old?: string; new?: string; recursive: boolean } = { recursive: false };
  walkSchemas(schema, (node, pointer) => {
    const old = draft07Form(node);
    if (old && !found.old) found.old = `${old} at ${pointer || '/'}`;
    const keyword = NEW_KEYWORDS.find((k) => k in node);
    if (keyword && !found.new) found.new = `${keyword} at ${pointer || '/'}`;
    if ('$recursiveRef' in node || '$recursiveAnchor' in node) found.recursive = true;
  });
  return found;
}

/**
 * The dialect `schema` is read in. A `$schema` decides (an unknown one throws UnknownDialectError).
 * Untagged, by `rule`: `mcp` reads it as 2020-12 (the MCP default since 2025-11-25) unless it
 * uses draft-07 forms and none of the newer keywords; `plugin` reads it as draft-07 when it
 * uses a form only draft-07 gives a meaning (`items` as an array, `additionalItems`,
 * `dependencies`), and as 2020-12 otherwise (2019-09 for `$recursiveRef`). Every other keyword
 * means the same in both, so a schema without those forms validates alike either way.
 * @example
 * readDialect({ type: 'object', properties: { pair: { items: [{ type: 'string' }, { type: 'number' }] } } })
 * // → { dialect: 'draft-07', from: 'untagged: items as an array at /properties/pair' }
 */
export function readDialect(schema: object, rule: UntaggedRule = 'plugin'): DialectReading {
  const tag = (schema as { $schema?: unknown }).$schema;
  if (tag !== undefined) {
    const dialect = typeof tag === 'string' ? dialectOfUri(tag) : undefined;
    if (!dialect) throw new UnknownDialectError(tag);
    return { dialect, from: '$schema' };
  }
  const found = forms(schema);
  if (found.old && !found.new) return { dialect: 'draft-07', from: `untagged: ${found.old}` };
  if (found.old) {
    // Both kinds: neither reading enforces everything. A plugin keeps today's draft-07 reading;
    // for MCP the spec's default stands.
    return rule === 'mcp'
      ? {
          dialect: '2020-12',
          from:
            `untagged (MCP default); its draft-07 forms (${found.old}) are not enforced: the server should set ` +
            `$schema`,
        }
      : {
          dialect: 'draft-07',
          from:
            `untagged: ${found.old}; its 2020-12 keywords (${found.new}) are not enforced: set $schema to say ` +
            `which dialect it is`,
        };
  }
  if (found.recursive) return { dialect: '2019-09', from: `untagged: ${found.new}` };
  return {
    dialect: '2020-12',
    from: rule === 'mcp' ? 'untagged (MCP default)' : found.new ? `untagged: ${found.new}` : 'untagged',
  };
}
