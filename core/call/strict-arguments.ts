/**
 * The way back from OpenAI strict mode: a strict schema makes every optional
 * property required-but-nullable, so a strict model sends `"count": null` for
 * "no count". The tool's original schema (which dispatch validates against)
 * usually rejects that null, so the caller removes those nulls first.
 */
import type { JsonSchema } from '../../boundary/plugin-api.js';
import { isSchema, mergeAllOf, resolveLocalRef, typesOf } from '../providers/json-schema.js';

function acceptsNull(schema: JsonSchema): boolean {
  if (typesOf(schema).includes('null') || schema.nullable === true || schema.const === null) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  const union = [...((schema.anyOf as unknown[]) ?? []), ...((schema.oneOf as unknown[]) ?? [])];
  return union.some((member) => isSchema(member) && acceptsNull(member));
}

function strip(value: unknown, input: unknown, root: JsonSchema, depth: number): unknown {
  if (!isSchema(input) || depth > 32) return value;
  const schema = typeof input.$ref === 'string' ? (resolveLocalRef(root, input.$ref) ?? input) : mergeAllOf(input);
  if (Array.isArray(value))
    return isSchema(schema.items) ? value.map((item) => strip(item, schema.items, root, depth + 1)) : value;
  if (!isSchema(value) || !isSchema(schema.properties)) return value;
  const properties = schema.properties as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (item === null && !required.has(key) && isSchema(property) && !acceptsNull(property)) continue;
    // Defined, not assigned: `out.__proto__ = x` would set the copy's prototype, and
    // `required` would then be met by inherited properties the handler never receives.
    Object.defineProperty(out, key, {
      value: strip(item, property, root, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Removes the nulls a strict-mode model sends for optional properties the
 * original schema does not allow to be null. Accepts the arguments as an
 * object or a JSON string and returns the same kind; anything else (bad
 * JSON included) comes back untouched, so dispatch reports it as usual.
 * @example
 * dropStrictNulls('{"path":"a","count":null}', tool.parameters) // → '{"path":"a"}'
 */
export function dropStrictNulls<T>(args: T, originalSchema: JsonSchema): T {
  if (typeof args !== 'string') return strip(args, originalSchema, originalSchema, 0) as T;
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return args;
  }
  return JSON.stringify(strip(parsed, originalSchema, originalSchema, 0)) as T;
}
