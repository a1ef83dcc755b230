/**
 * A call's arguments on their way in: parsed from the model's JSON string
 * (or taken as an object), then checked against the tool's own schema,
 * compiled once per tool. Problems come back as INVALID_ARGUMENTS outcomes
 * with a JSON pointer and an expectation each.
 */
import { compile, problems } from '../schema.js';
import { failure, type CallOutcome } from './outcome.js';
import type { ToolRecord } from '../types.js';

/** Parses arguments given as an object or a JSON string; bad JSON names the position. */
export function parseArguments(raw: unknown): { ok: true; value: unknown } | { ok: false; outcome: CallOutcome } {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw !== 'string') return { ok: true, value: raw };
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    const message = (error as Error).message;
    return { ok: false, outcome: failure('INVALID_ARGUMENTS', `arguments are not valid JSON: ${message}. Send a JSON object matching the tool's parameters.`) };
  }
}

/** Validates against the tool's own (original) schema, compiled once per tool. */
export function validateArguments(record: ToolRecord, args: unknown): CallOutcome | undefined {
  record.validate ??= compile(record.manifest.parameters);
  if (record.validate(args)) return undefined;
  const list = problems(record.validate.errors);
  const lines = list.map((p) => `${p.pointer || '/'} ${p.message}`);
  return failure('INVALID_ARGUMENTS', `invalid arguments for ${record.name}: ${lines.join('; ')}`);
}
