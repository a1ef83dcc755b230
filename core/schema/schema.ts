/**
 * The ajv instances for every JSON Schema toolshed checks at run time (manifests' parameter
 * schemas, tool arguments, MCP output schemas): one ajv class per dialect (draft-07, 2019-09,
 * 2020-12), picked by the schema's `$schema` (core/schema/schema-dialect.ts), and the translation of
 * ajv errors into "pointer: expected" problems that a person or a model can act on. Compiled
 * validators live in bounded caches, one per dialect and configuration, keyed by the schema's
 * canonical hash.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { canonicalJson } from '../text/canonical-json.js';
import { escapePointer } from '../../boundary/json-pointer.js';
import { DIALECT_URIS, readDialect, type SchemaDialect } from './schema-dialect.js';

// ajv is loaded on the first compile, not at import: a host whose config and
// manifests come precompiled and cached starts without it (docs/performance.md).
const require = createRequire(import.meta.url);

/** One validation problem: where (JSON pointer) and what was expected. */
interface SchemaProblem {
  pointer: string;
  message: string;
}

/**
 * ajv's class for a dialect: draft-06 shares draft-07's (ajv's draft-07 vocabulary reads draft-06, given its
 * meta-schema).
 */
function ajvClass(dialect: SchemaDialect): new (options: object) => Ajv {
  if (dialect === '2020-12')
    return (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020 as unknown as new (
      options: object,
    ) => Ajv;
  if (dialect === '2019-09')
    return (require('ajv/dist/2019.js') as typeof import('ajv/dist/2019.js')).Ajv2019 as unknown as new (
      options: object,
    ) => Ajv;
  return (require('ajv') as typeof import('ajv')).Ajv;
}

/**
 * Creates the shared ajv configuration for a dialect (draft-07 when none is given): formats,
 * tolerant of unknown keywords in plugin schemas, and `strictNumbers` so Infinity and NaN
 * (`1e400` parses to Infinity) fail `number` and `integer`. `allErrors: false` stops at the
 * first problem: the cheap way to reject an input of any size.
 */
export function createAjv(options: { allErrors?: boolean; dialect?: SchemaDialect } = {}): Ajv {
  const dialect = options.dialect ?? 'draft-07';
  const AjvClass = ajvClass(dialect);
  // ajv-formats is CommonJS with a default export property.
  const addFormats = (require('ajv-formats') as { default: (ajv: Ajv) => Ajv }).default;
  const ajv = new AjvClass({
    allErrors: options.allErrors ?? true,
    strict: false,
    strictNumbers: true,
    allowUnionTypes: true,
    validateFormats: true,
  });
  if (dialect === 'draft-06') ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object);
  addFormats(ajv);
  return ajv;
}

/**
 * The schema as its dialect's ajv instance reads it: a `$schema` that names the dialect in
 * another spelling (https, no `#`) is given the one ajv registered.
 */
export function forAjv(schema: object, dialect: SchemaDialect): object {
  const tag = (schema as { $schema?: unknown }).$schema;
  if (
    tag === undefined ||
    tag === DIALECT_URIS[dialect] ||
    (dialect === 'draft-07' && tag === 'http://json-schema.org/draft-07/schema')
  )
    return schema;
  return { ...schema, $schema: DIALECT_URIS[dialect] };
}

/** Compiled validators kept per dialect and ajv configuration; the least recently used one past this is evicted. */
export const SCHEMA_CACHE_MAX = 500;
/**
 * Compiles one ajv instance takes before a fresh one replaces it. ajv keeps every compiled
 * schema's values in its instance-wide code scope and `removeSchema` does not free them, so an
 * instance that compiled without end would grow without end; the old instance is collected once
 * no cached validator of it is left.
 */
const COMPILES_PER_AJV = 2_000;

/** The cache key of a schema: a hash of its canonical JSON. */
function schemaKey(schema: object): string {
  return createHash('sha256').update(canonicalJson(schema)).digest('base64');
}

type Compiled = { ok: true; validate: ValidateFunction; schema: object; ajv: Ajv } | { ok: false; error: Error };

/**
 * Validators by schema hash, least recently used first. A schema that does not compile is kept
 * too (its error), so a broken tool is not compiled again on every call.
 */
class ValidatorCache {
  private ajv: Ajv | undefined;
  private compiles = 0;
  private readonly entries = new Map<string, Compiled>();

  constructor(
    private readonly allErrors: boolean,
    private readonly dialect: SchemaDialect,
  ) {}

  compile(schema: object): ValidateFunction {
    const key = schemaKey(schema);
    let entry = this.entries.get(key);
    if (entry) this.entries.delete(key);
    else entry = this.fresh(schema);
    this.entries.set(key, entry);
    if (this.entries.size > SCHEMA_CACHE_MAX) this.evictOldest();
    if (!entry.ok) throw entry.error;
    return entry.validate;
  }

  get size(): number {
    return this.entries.size;
  }

  private fresh(schema: object): Compiled {
    if (!this.ajv || this.compiles >= COMPILES_PER_AJV) {
      this.ajv = createAjv({ allErrors: this.allErrors, dialect: this.dialect });
      this.compiles = 0;
    }
    this.compiles++;
    const ajv = this.ajv;
    try {
      return { ok: true, validate: ajv.compile(forAjv(schema, this.dialect)), schema, ajv };
    } catch (error) {
      ajv.removeSchema(forAjv(schema, this.dialect));
      return { ok: false, error: error as Error };
    }
  }

  private evictOldest(): void {
    const [key, entry] = this.entries.entries().next().value as [string, Compiled];
    this.entries.delete(key);
    // A validator already handed out keeps working: removal only drops ajv's own references.
    if (entry.ok) entry.ajv.removeSchema(forAjv(entry.schema, this.dialect));
  }
}

type CacheName = `${SchemaDialect}:${'all' | 'first'}`;
/**
 * One cache per dialect and configuration, made at its first use (draft-06 shares draft-07's ajv class, not its
 * instance).
 */
const caches = new Map<CacheName, ValidatorCache>();

function cacheFor(dialect: SchemaDialect, allErrors: boolean): ValidatorCache {
  const name: CacheName = `${dialect}:${allErrors ? 'all' : 'first'}`;
  let cache = caches.get(name);
  if (!cache) caches.set(name, (cache = new ValidatorCache(allErrors, dialect)));
  return cache;
}

/**
 * Compiles `schema` with the shared instance of its dialect, or returns the validator compiled
 * for an equal schema (compared by canonical JSON); throws ajv's error for an invalid schema,
 * and UnknownDialectError for a `$schema` toolshed does not validate. `dialect` is the one the
 * caller read the schema in (`readDialect`); without it, the schema's `$schema` decides, and an
 * untagged schema is read by the plugin rule. At most `SCHEMA_CACHE_MAX` validators per dialect
 * and configuration are kept, so schemas that keep changing (an MCP server re-listing) cannot
 * grow the cache. `allErrors: false` gives a validator that stops at the first problem (ajv
 * checks an array's `maxItems` before its items, so a million-item array fails in one step).
 * @example
 * compile({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }],
 * items: false })(['a']) // → true
 */
export function compile(
  schema: object,
  options: { allErrors?: boolean; dialect?: SchemaDialect } = {},
): ValidateFunction {
  const dialect = options.dialect ?? readDialect(schema).dialect;
  return cacheFor(dialect, options.allErrors !== false).compile(schema);
}

/**
 * How many validators are cached, per configuration, over every dialect or over `dialect`'s only (for tests and the
 * bench).
 */
export function compiledSchemas(dialect?: SchemaDialect): { all: number; first: number } {
  let all = 0;
  let first = 0;
  for (const [name, cache] of caches) {
    if (dialect !== undefined && !name.startsWith(`${dialect}:`)) continue;
    if (name.endsWith(':all')) all += cache.size;
    else first += cache.size;
  }
  return { all, first };
}

function describe(error: ErrorObject): SchemaProblem {
  const base = error.instancePath || '';
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { pointer: `${base}/${escapePointer(String(params.missingProperty))}`, message: 'is required' };
    case 'additionalProperties':
      return {
        pointer: `${base}/${escapePointer(String(params.additionalProperty))}`,
        message: 'is not an allowed property',
      };
    case 'unevaluatedProperties':
      return {
        pointer: `${base}/${escapePointer(String(params.unevaluatedProperty))}`,
        message: 'is not an allowed property',
      };
    case 'dependentRequired':
    case 'dependencies':
      if (params.missingProperty === undefined) break;
      return {
        pointer: `${base}/${escapePointer(String(params.missingProperty))}`,
        message: `is required when ${JSON.stringify(params.property)} is present`,
      };
    case 'enum':
      return {
        pointer: base || '/',
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'const':
      return { pointer: base || '/', message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'type':
      return {
        pointer: base || '/',
        message: `must be ${Array.isArray(params.type) ? params.type.join(' or ') : String(params.type)}`,
      };
    case 'propertyNames':
      return { pointer: `${base}/${escapePointer(String(params.propertyName))}`, message: 'is not an allowed name' };
  }
  return { pointer: base || '/', message: error.message ?? `fails ${error.keyword}` };
}

/**
 * Turns ajv errors into problems. For `oneOf`/`anyOf`, errors deeper inside
 * the alternative whose type matched are kept, since they say what to fix;
 * otherwise one line names the alternatives.
 */
export function problems(errors: readonly ErrorObject[] | null | undefined): SchemaProblem[] {
  if (!errors) return [];
  const unions = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf');
  const out: SchemaProblem[] = [];
  const seen = new Set<string>();
  const push = (problem: SchemaProblem) => {
    const key = `${problem.pointer} ${problem.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(problem);
    }
  };
  for (const error of errors) {
    if (error.keyword === 'oneOf' || error.keyword === 'anyOf') continue;
    const union = unions.find((u) =>
      error.schemaPath.startsWith(`${u.schemaPath.replace(/\/(oneOf|anyOf)$/, '')}/${u.keyword}/`),
    );
    if (union) {
      const deeper = errors.some(
        (e) =>
          e !== union &&
          e.keyword !== union.keyword &&
          e.instancePath.length > union.instancePath.length &&
          e.instancePath.startsWith(union.instancePath),
      );
      if (!deeper) {
        const alternatives = errors
          .filter((e) => e.keyword === 'type' && e.instancePath === union.instancePath)
          .map((e) => String((e.params as { type: unknown }).type));
        push({
          pointer: union.instancePath || '/',
          message: `must be ${alternatives.length ? alternatives.join(' or ') : 'one of the allowed shapes'}`,
        });
        continue;
      }
      if (error.instancePath === union.instancePath && error.keyword === 'type') continue;
    }
    push(describe(error));
  }
  return out;
}

/** "pointer: message" lines, one per problem. */
export function formatProblems(list: readonly SchemaProblem[]): string {
  return list.map((p) => `${p.pointer || '/'}: ${p.message}`).join('; ');
}
