/**
 * The fingerprints of a call that the audit log and traces carry instead of its content: the
 * sha256 of a canonical JSON of the arguments as they arrived (object keys sorted at every
 * level, so equal arguments give equal digests however they were spelled), and the sha256 of
 * the result text the caller got (the string `dispatch` returns: the text, or the error envelope).
 */
import { createHash } from 'node:crypto';
import { envelope, type CallOutcome } from '../../boundary/outcome.js';
import { parseArguments } from './arguments.js';

/** The arguments of a call as the audit log reads them: their digest, and their value when they could be read. */
export interface ReceivedArguments {
  /** hex sha256 of their canonical JSON (of the raw string when it is no JSON, too deep, or over the size limit) */
  digest: string;
  /**
   * the parsed arguments; absent when they were not read (bad JSON or over `maxBytes`: then the digest is of the raw
   * string)
   */
  value?: unknown;
}

/** Hex sha256 of a string's UTF-8 bytes. */
function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * JSON with every object's keys in sorted order (UTF-16 code units, as RFC 8785 sorts them), after
 * `toJSON`, dropping what JSON.stringify drops; numbers and strings as JSON.stringify writes them.
 * Throws for what JSON cannot hold (a cycle, a bigint) and for nesting deeper than the stack.
 */
function canonicalJson(value: unknown): string {
  return canonical(value) ?? 'null';
}

/** The canonical JSON of `value`, or undefined where JSON.stringify would leave it out (undefined, a function). */
function canonical(value: unknown): string | undefined {
  const json =
    typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function'
      ? (value as { toJSON(): unknown }).toJSON()
      : value;
  if (Array.isArray(json)) return `[${json.map((item) => canonical(item) ?? 'null').join(',')}]`;
  if (typeof json !== 'object' || json === null) return JSON.stringify(json);
  const object = json as Record<string, unknown>;
  const members: string[] = [];
  for (const key of Object.keys(object).sort()) {
    const member = canonical(object[key]);
    if (member !== undefined) members.push(`${JSON.stringify(key)}:${member}`);
  }
  return `{${members.join(',')}}`;
}

/**
 * The arguments `raw` (a JSON string or a value) read the way dispatch reads them, at the first
 * ask and kept (the audit log and the trace share them): absent means `{}`; a string over
 * `maxBytes` or with bad JSON is not read (its digest is of the raw string), nor is one nested too
 * deep to walk.
 */
export function receivedArguments(raw: unknown, maxBytes: number): () => ReceivedArguments {
  let received: ReceivedArguments | undefined;
  return () => (received ??= readArguments(raw, maxBytes));
}

function readArguments(raw: unknown, maxBytes: number): ReceivedArguments {
  const parsed = parseArguments(raw, maxBytes);
  if (!parsed.ok) return { digest: sha256(String(raw)) };
  try {
    return { digest: sha256(canonicalJson(parsed.value)), value: parsed.value };
  } catch {
    // Too deep or not JSON at all: a string is digested as it came, so unlike arguments still differ.
    return typeof raw === 'string' ? { digest: sha256(raw) } : { digest: sha256('[arguments JSON cannot hold]') };
  }
}

/** Result digests already made, by outcome (the audit log and the trace both want one). */
const resultDigests = new WeakMap<CallOutcome, string>();

/** Hex sha256 of the result text the caller got: the text, or the `{"error","code"}` envelope. */
export function resultDigest(outcome: CallOutcome): string {
  let digest = resultDigests.get(outcome);
  if (digest === undefined) resultDigests.set(outcome, (digest = sha256(envelope(outcome))));
  return digest;
}
