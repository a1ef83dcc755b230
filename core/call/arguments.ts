/**
 * A call's arguments on their way in: size-checked and parsed from the model's
 * JSON string (or taken as an object), then checked against the tool's own
 * schema in its dialect (`manifest.dialect`), compiled at its first call (a schema
 * that does not compile fails the call with TOOL_FAILED) and kept here by tool,
 * not on the registry's records, which stay read-only data. Problems come back as
 * INVALID_ARGUMENTS outcomes with a JSON pointer and an expectation each, and stay small
 * whatever the input: a raw string over `maxArgsBytes` is refused unparsed,
 * validation stops at the first problem, every problem is listed only for
 * small inputs, and the message is capped like a result. Nulls a strict-mode model sends
 * for "absent" are dropped when that is what makes the arguments valid.
 */
import { compile, problems } from '../schema/schema.js';
import { dropStrictNulls } from './strict-arguments.js';
import { failure, type CallOutcome } from '../../boundary/outcome.js';
import { capText } from '../../boundary/normalize.js';
import type { ValidateFunction } from 'ajv';
import type { ToolRecord } from '../load/types.js';

/** What validation needs of a tool: its name, its schema and limits. */
export type ValidatedTool = Pick<ToolRecord, 'name'> & {
  manifest: Pick<ToolRecord['manifest'], 'parameters' | 'limits' | 'dialect'>;
};

/** A tool's compiled validators. */
interface Validators {
  /** compiled at the tool's first call; stops at the first problem */
  first: ValidateFunction;
  /** compiled at its first invalid call; lists every problem (used on small inputs only) */
  all?: ValidateFunction;
}

/**
 * Each tool's validators, by its record (or host tool): a replaced plugin set brings new records,
 * so a changed schema is compiled afresh, and the old ones go with their records.
 */
const compiled = new WeakMap<ValidatedTool, Validators>();

/** Inputs with at most this many values (objects, arrays and scalars) get every problem listed, not just the first. */
const FULL_REPORT_MAX_VALUES = 1_000;
/** Problems listed in one message; the rest are counted. */
const MAX_LISTED_PROBLEMS = 10;

/**
 * Whether `raw` takes more than `maxBytes` bytes as UTF-8, decided without encoding it when its length already says.
 */
function tooLong(raw: string, maxBytes: number): boolean {
  // UTF-8 needs at least one and at most three bytes per UTF-16 unit.
  if (raw.length > maxBytes) return true;
  if (raw.length * 3 <= maxBytes) return false;
  return Buffer.byteLength(raw, 'utf8') > maxBytes;
}

/**
 * Parses arguments given as an object or a JSON string; bad JSON names the position.
 * A string over `maxBytes` is refused before JSON.parse ever sees it.
 */
export function parseArguments(
  raw: unknown,
  maxBytes = Infinity,
): { ok: true; value: unknown } | { ok: false; outcome: CallOutcome } {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw !== 'string') return { ok: true, value: raw };
  if (tooLong(raw, maxBytes)) {
    return {
      ok: false,
      outcome: failure(
        'INVALID_ARGUMENTS',
        `arguments are over the limit of ${maxBytes} bytes (limits.maxArgsBytes); they were not read. Send ` +
          `less data in one call (for example, write a large file in parts).`,
      ),
    };
  }
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    const message = (error as Error).message;
    return {
      ok: false,
      outcome: failure(
        'INVALID_ARGUMENTS',
        `arguments are not valid JSON: ${message}. Send a JSON object matching the tool's parameters.`,
      ),
    };
  }
}

/** Whether `value` holds at most `max` values in all, counted without walking further than that. */
function holdsAtMost(value: unknown, max: number): boolean {
  let budget = max;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    if (--budget < 0) return false;
    const item = stack.pop();
    if (typeof item !== 'object' || item === null) continue;
    const children = Array.isArray(item) ? item : Object.values(item);
    // An array's length is known before its items are visited: a long one fails here.
    if (children.length > budget) return false;
    for (const child of children) stack.push(child);
  }
  return true;
}

/**
 * The call of a tool whose own schema does not compile (an MCP server's schemas are compiled
 * at their first call, not when listed): the tool is at fault, and nothing was sent.
 */
function brokenSchema(record: ValidatedTool, error: unknown, maxChars: number): CallOutcome {
  const why = (error as Error)?.message ?? String(error);
  return failure(
    'TOOL_FAILED',
    capText(
      `tool ${record.name} cannot be called: its inputSchema does not compile: ${why}. The arguments were not ` +
        `sent; the tool's server or plugin must fix its schema.`,
      maxChars,
    ),
  );
}

/**
 * Validates against the tool's own (original) schema. The validator stops at the
 * first problem, so an input of any size costs at most one pass; a small input is
 * validated again to list every problem for the model. The message is capped at
 * `maxChars` (the tool's maxResultChars).
 */
export function validateArguments(record: ValidatedTool, args: unknown, maxChars = Infinity): CallOutcome | undefined {
  let validators = compiled.get(record);
  if (!validators) {
    let first: ValidateFunction;
    try {
      first = compile(record.manifest.parameters, { allErrors: false, dialect: record.manifest.dialect?.dialect });
    } catch (error) {
      return brokenSchema(record, error, maxChars);
    }
    validators = { first };
    compiled.set(record, validators);
  }
  const { first } = validators;
  if (first(args)) return undefined;
  let errors = first.errors;
  const complete = holdsAtMost(args, FULL_REPORT_MAX_VALUES);
  if (complete) {
    const all = (validators.all ??= compile(record.manifest.parameters, { dialect: record.manifest.dialect?.dialect }));
    all(args);
    errors = all.errors ?? errors;
  }
  const list = problems(errors);
  const lines = list.slice(0, MAX_LISTED_PROBLEMS).map((p) => `${p.pointer || '/'} ${p.message}`);
  const rest = list.length - lines.length;
  if (rest > 0) lines.push(`and ${rest} more problem${rest === 1 ? '' : 's'}`);
  else if (!complete) lines.push('(the arguments are large, so only the first problem is listed)');
  return failure('INVALID_ARGUMENTS', capText(`invalid arguments for ${record.name}: ${lines.join('; ')}`, maxChars));
}

/**
 * The arguments a call of `record` runs with: parsed (see parseArguments) and valid against the
 * tool's own schema, or the INVALID_ARGUMENTS outcome. A model given an OpenAI strict-mode schema
 * sends null for "absent"; when dropping such nulls makes the arguments valid, that is what it
 * meant, and the arguments without them are the ones that run.
 */
export function acceptArguments(
  record: ValidatedTool,
  raw: unknown,
  maxArgsBytes = Infinity,
  maxChars = Infinity,
): { ok: true; value: unknown } | { ok: false; outcome: CallOutcome } {
  const parsed = parseArguments(raw, maxArgsBytes);
  if (!parsed.ok) return parsed;
  const invalid = validateArguments(record, parsed.value, maxChars);
  if (!invalid) return parsed;
  const withoutNulls = dropStrictNulls(parsed.value, record.manifest.parameters);
  if (validateArguments(record, withoutNulls, maxChars)) return { ok: false, outcome: invalid };
  return { ok: true, value: withoutNulls };
}
