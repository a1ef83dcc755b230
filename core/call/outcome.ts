/**
 * The structured outcome of one dispatch and its two renderings: the string
 * the model reads (the result text, or the `{"error","code"}` envelope) and
 * the failure value every stage returns instead of throwing.
 */
import type { ToolErrorCode } from '../errors.js';

/** The outcome of one dispatch, as `host.call` and a plugin's `ctx.callTool` see it. */
export type CallOutcome = { ok: true; text: string } | { ok: false; code: ToolErrorCode; message: string };

/** A failed outcome with `code`. */
export function failure(code: ToolErrorCode, message: string): CallOutcome {
  return { ok: false, code, message };
}

/** The envelope string of an outcome: the text, or `{"error","code"}`. */
export function envelope(outcome: CallOutcome): string {
  return outcome.ok ? outcome.text : JSON.stringify({ error: outcome.message, code: outcome.code });
}
