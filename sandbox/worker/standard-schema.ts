/**
 * Standard Schema objects (zod, valibot, ArkType…) as a tool's `parameters`, inside the
 * plugin's own tier: converted to JSON Schema when the manifest is extracted (the host only
 * ever sees JSON Schema, and validates with ajv as for any tool), and run on the arguments
 * before the handler, so the handler receives the library's output (defaults, transforms).
 * Runs only in workers and process-tier children, never on the host's thread.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { codedError } from '../../boundary/errors.js';
import { escapePointer } from '../../boundary/json-pointer.js';
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '../../boundary/standard-schema.js';

/** The dialect toolshed asks converters for, and tags their output with when they do not. */
export const CONVERTED_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

type Handler = (...args: unknown[]) => unknown;

/**
 * Whether `value` is a Standard Schema object: `~standard` with version 1 and a `validate`
 * function. A JSON Schema cannot be one (`~standard` is no JSON Schema keyword a plugin would
 * write, and a function is no JSON value). ArkType's schemas are functions, so those count too.
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' || value === null) && typeof value !== 'function') return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return (
    typeof props === 'object' &&
    props !== null &&
    (props as { version?: unknown }).version === 1 &&
    typeof (props as { validate?: unknown }).validate === 'function'
  );
}

/** The named exports of `specifier` as the plugin's own entry module would resolve it (its folder, then up). */
async function importFromPlugin(specifier: string, entry: string): Promise<Record<string, unknown>> {
  // createRequire resolves from the plugin's folder through Node's own resolver (which the process
  // tier's permission model lets walk the plugin's dependency folders); import() of what it found
  // loads the package's CommonJS build where it has one, a second instance beside the plugin's
  // ESM one. The converters only read the schema object, and zod 4 keeps its metadata registry
  // on globalThis, so both instances see the same schemas.
  let file: string;
  try {
    file = createRequire(entry).resolve(specifier);
  } catch (error) {
    // Node's message lists the whole require stack; the plugin's author needs only this.
    if ((error as { code?: unknown }).code === 'MODULE_NOT_FOUND')
      throw new Error(`${specifier} is not installed where the plugin resolves it`, { cause: error });
    throw error;
  }
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

/** "a" or "an" before a library's name. */
function article(vendor: string, capital = true): string {
  const word = /^[aeiou]/i.test(vendor) ? 'an' : 'a';
  return capital ? word[0]!.toUpperCase() + word.slice(1) : word;
}

/** What to pass instead, by library. */
function advice(vendor: string): string {
  if (vendor === 'zod') {
    return (
      'Use zod 4 (from version 4.2 its schemas convert themselves), installed as a dependency of the plugin, or ' +
      'pass a JSON Schema object: parameters: z.toJSONSchema(schema)'
    );
  }
  if (vendor === 'valibot') {
    return (
      'Install @valibot/to-json-schema as a dependency of the plugin (toolshed converts valibot schemas with its ' +
      'toJsonSchema), or pass toStandardJsonSchema(schema) from it, or a JSON Schema object'
    );
  }
  return (
    `${article(vendor)} ${vendor} schema must implement Standard JSON Schema (~standard.jsonSchema, see ` +
    `standardschema.dev) to be converted; otherwise pass a JSON Schema object as parameters`
  );
}

/**
 * The package that converted a schema, as the manifest cache checks it: its package.json (a real
 * path) and the version it held. A cached manifest whose converter changed is extracted again.
 */
export interface SchemaLibrary {
  packageJson: string;
  version: string;
}

/** `name`'s package.json as the plugin resolves it, and its version; undefined when it cannot be found. */
function libraryOf(name: string, entry: string): SchemaLibrary | undefined {
  try {
    let dir = path.dirname(realpathSync(createRequire(entry).resolve(name)));
    for (;;) {
      const packageJson = path.join(dir, 'package.json');
      const pkg = existsSync(packageJson)
        ? (JSON.parse(readFileSync(packageJson, 'utf8')) as { name?: unknown; version?: unknown })
        : undefined;
      if (pkg?.name === name && typeof pkg.version === 'string') return { packageJson, version: pkg.version };
      const parent = path.dirname(dir);
      if (parent === dir) return undefined;
      dir = parent;
    }
  } catch {
    return undefined;
  }
}

/**
 * The library's JSON Schema of the schema's input (or output: a result's schema), through the first way that it offers,
 * and the package that converted it.
 */
async function convert(
  schema: StandardSchemaV1,
  entry: string,
  io: 'input' | 'output',
): Promise<{ json: unknown; library: string }> {
  const props = schema['~standard'] as StandardSchemaV1.Props & Partial<StandardJSONSchemaV1.Props>;
  const own = props.jsonSchema?.[io];
  if (typeof own === 'function') return { json: own({ target: 'draft-2020-12' }), library: String(props.vendor) };
  if (props.vendor === 'zod') {
    const { toJSONSchema } = await importFromPlugin('zod', entry);
    if (typeof toJSONSchema !== 'function')
      throw new TypeError('the zod package the plugin resolves has no toJSONSchema (zod 3?)');
    return { json: toJSONSchema(schema, { target: 'draft-2020-12', io }), library: 'zod' };
  }
  if (props.vendor === 'valibot') {
    const { toJsonSchema } = await importFromPlugin('@valibot/to-json-schema', entry);
    if (typeof toJsonSchema !== 'function')
      throw new TypeError('the @valibot/to-json-schema package the plugin resolves has no toJsonSchema');
    return {
      json: toJsonSchema(schema, { target: 'draft-2020-12', typeMode: io }),
      library: '@valibot/to-json-schema',
    };
  }
  throw new TypeError(
    `the ${String(props.vendor)} library does not implement Standard JSON Schema, and toolshed has no converter for it`,
  );
}

/**
 * The JSON Schema of a Standard Schema's input, as JSON data tagged with its dialect (2020-12
 * unless the library says otherwise), with the package that converted it (see SchemaLibrary)
 * when it can be found from the plugin's folder (a vendor's name is usually its package's).
 * Throws PLUGIN_INVALID naming `where` and what to pass instead. `io: 'output'` converts the
 * schema's output type instead (a tool's outputSchema describes what the handler returns).
 */
export async function convertedSchema(
  schema: StandardSchemaV1,
  entry: string,
  where: string,
  io: 'input' | 'output' = 'input',
): Promise<{ schema: Record<string, unknown>; library?: SchemaLibrary }> {
  const vendor = String(schema['~standard'].vendor);
  let converted: unknown;
  let library: SchemaLibrary | undefined;
  try {
    const done = await convert(schema, entry, io);
    converted = JSON.parse(JSON.stringify(done.json) ?? 'null');
    library = libraryOf(done.library, entry);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw codedError(
      'PLUGIN_INVALID',
      `${where} is ${article(vendor, false)} ${vendor} schema that could not be converted to JSON Schema (` +
        `${why}). ${advice(vendor)}.`,
      { cause: error },
    );
  }
  if (typeof converted !== 'object' || converted === null || Array.isArray(converted)) {
    throw codedError(
      'PLUGIN_INVALID',
      `${where} is ${article(vendor, false)} ${vendor} schema whose JSON Schema is not an object. ${advice(vendor)}.`,
    );
  }
  const json = converted as Record<string, unknown>;
  const tagged = json.$schema === undefined ? { $schema: CONVERTED_DIALECT, ...json } : json;
  return library ? { schema: tagged, library } : { schema: tagged };
}

/** `/a/0/b` from a Standard Schema issue path (RFC 6901 escaping). */
function pointer(path: StandardSchemaV1.Issue['path']): string {
  if (!path?.length) return '/';
  return path
    .map(
      (segment) => `/${escapePointer(String(typeof segment === 'object' && segment !== null ? segment.key : segment))}`,
    )
    .join('');
}

/** At most this many issues are listed in the message, as the host's own validation does. */
const MAX_LISTED_ISSUES = 10;

/** INVALID_ARGUMENTS from a schema's issues, worded like the host's ajv problems. */
function invalidArguments(tool: string, issues: ReadonlyArray<StandardSchemaV1.Issue>): Error {
  const lines = issues.slice(0, MAX_LISTED_ISSUES).map((issue) => `${pointer(issue.path)} ${String(issue.message)}`);
  const rest = issues.length - lines.length;
  if (rest > 0) lines.push(`and ${rest} more problem${rest === 1 ? '' : 's'}`);
  return codedError('INVALID_ARGUMENTS', `invalid arguments for ${tool}: ${lines.join('; ')}`);
}

/**
 * `handler` behind the schema's own validation: called with the validated value (the library's
 * output: defaults filled, transforms applied), or failing with INVALID_ARGUMENTS. Synchronous
 * when the schema's validation is; the call's deadline covers an asynchronous one.
 */
export function validatingHandler(tool: string, schema: StandardSchemaV1, handler: Handler): Handler {
  const props = schema['~standard'];
  const call = (result: StandardSchemaV1.Result<unknown>, ctx: unknown): unknown => {
    if (result.issues) throw invalidArguments(tool, result.issues);
    return handler(result.value, ctx);
  };
  return (args: unknown, ctx: unknown) => {
    const result = props.validate(args);
    return typeof (result as { then?: unknown }).then === 'function'
      ? (result as Promise<StandardSchemaV1.Result<unknown>>).then((settled) => call(settled, ctx))
      : call(result as StandardSchemaV1.Result<unknown>, ctx);
  };
}
