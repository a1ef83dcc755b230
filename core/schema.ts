/**
 * One ajv instance for every JSON Schema toolshed checks (config, manifests,
 * tool arguments), and the translation of ajv errors into "pointer: expected"
 * problems that a person or a model can act on.
 */
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';

// ajv is loaded on the first compile, not at import: a host whose config and
// manifests come precompiled and cached starts without it (docs/performance.md).
const require = createRequire(import.meta.url);

/** One validation problem: where (JSON pointer) and what was expected. */
export interface SchemaProblem {
  pointer: string;
  message: string;
}

/**
 * Creates the shared ajv configuration: formats, tolerant of unknown keywords in plugin schemas,
 * and `strictNumbers` so Infinity and NaN (`1e400` parses to Infinity) fail `number` and `integer`.
 * `allErrors: false` stops at the first problem: the cheap way to reject an input of any size.
 */
export function createAjv(options: { allErrors?: boolean } = {}): Ajv {
  const { Ajv: AjvClass } = require('ajv') as typeof import('ajv');
  // ajv-formats is CommonJS with a default export property.
  const addFormats = (require('ajv-formats') as { default: (ajv: Ajv) => Ajv }).default;
  const ajv = new AjvClass({ allErrors: options.allErrors ?? true, strict: false, strictNumbers: true, allowUnionTypes: true, validateFormats: true });
  addFormats(ajv);
  return ajv;
}

let shared: Ajv | undefined;
let firstError: Ajv | undefined;

/**
 * Compiles `schema` with a shared instance; throws ajv's error for an invalid schema.
 * `allErrors: false` gives a validator that stops at the first problem (ajv checks an
 * array's `maxItems` before its items, so a million-item array fails in one step).
 */
export function compile(schema: object, options: { allErrors?: boolean } = {}): ValidateFunction {
  if (options.allErrors === false) {
    firstError ??= createAjv({ allErrors: false });
    return firstError.compile(schema);
  }
  shared ??= createAjv();
  return shared.compile(schema);
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function describe(error: ErrorObject): SchemaProblem {
  const base = error.instancePath || '';
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { pointer: `${base}/${escapePointer(String(params.missingProperty))}`, message: 'is required' };
    case 'additionalProperties':
      return { pointer: `${base}/${escapePointer(String(params.additionalProperty))}`, message: 'is not an allowed property' };
    case 'enum':
      return { pointer: base || '/', message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'const':
      return { pointer: base || '/', message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'type':
      return { pointer: base || '/', message: `must be ${Array.isArray(params.type) ? params.type.join(' or ') : String(params.type)}` };
    case 'propertyNames':
      return { pointer: `${base}/${escapePointer(String(params.propertyName))}`, message: 'is not an allowed name' };
    default:
      return { pointer: base || '/', message: error.message ?? `fails ${error.keyword}` };
  }
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
    const union = unions.find((u) => error.schemaPath.startsWith(u.schemaPath.replace(/\/(oneOf|anyOf)$/, '') + `/${u.keyword}/`));
    if (union) {
      const deeper = errors.some((e) => e !== union && e.keyword !== union.keyword && e.instancePath.length > union.instancePath.length && e.instancePath.startsWith(union.instancePath));
      if (!deeper) {
        const alternatives = errors
          .filter((e) => e.keyword === 'type' && e.instancePath === union.instancePath)
          .map((e) => String((e.params as { type: unknown }).type));
        push({ pointer: union.instancePath || '/', message: `must be ${alternatives.length ? alternatives.join(' or ') : 'one of the allowed shapes'}` });
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
