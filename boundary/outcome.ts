/**
 * The structured outcome of one dispatch and its two renderings: the string
 * the model reads (the result text, or the `{"error","code"}` envelope) and
 * the failure value every stage returns instead of throwing.
 */
import { capText, truncationMarker } from './normalize.js';
import type { ToolErrorCode } from './errors.js';

/**
 * One MCP content block (text, image, audio, resource_link, resource), kept
 * exactly as the MCP server sent it, annotations and `_meta` included.
 */
export interface ContentBlock {
  type: 'text' | 'image' | 'audio' | 'resource_link' | 'resource';
  [key: string]: unknown;
}

/**
 * A result richer than text (MCP servers' images, audio, resources,
 * `structuredContent`): the blocks as sent. `text` stays the string the model
 * reads through `dispatch()`; `serve` sends these blocks unchanged.
 */
export interface RichContent {
  blocks: ContentBlock[];
  structured?: Record<string, unknown>;
}

/**
 * The outcome of one dispatch, as `host.call` and a plugin's `ctx.callTool` see it.
 * `content` is present only when the tool's result held more than one plain text
 * block (today: MCP-server tools); `text` is always its rendering.
 */
export type CallOutcome =
  | { ok: true; text: string; content?: RichContent }
  | { ok: false; code: ToolErrorCode; message: string; retryAfterMs?: number; content?: RichContent };

/** A failed outcome with `code`. */
export function failure(code: ToolErrorCode, message: string): CallOutcome {
  return { ok: false, code, message };
}

/** The RESULT_TRUNCATED marker at the end of a text, with the original length. */
const CUT_MARKER = /\n\[RESULT_TRUNCATED: showing \d+ of (\d+) characters\]$/;

/**
 * A failed outcome whose envelope (`{"error","code"}`, JSON escapes included)
 * fits in `maxChars`, like a result: a longer message is cut and ends with the
 * RESULT_TRUNCATED marker.
 */
export function cappedFailure(code: ToolErrorCode, message: string, maxChars: number): CallOutcome {
  const room = maxChars - envelope(failure(code, '')).length;
  const escaped = (text: string) => JSON.stringify(text).length - 2;
  if (message.length <= room && escaped(message) <= room) return failure(code, message);
  // Cut upstream already (the worker caps too)? Then the marker there knows the original length.
  const original = Number(CUT_MARKER.exec(message)?.[1] ?? message.length);
  const body = message.replace(CUT_MARKER, '');
  // At most `keep` characters of the body, always ending with the marker.
  const cutTo = (keep: number) => {
    const cut = capText(body, keep, original);
    return cut === body ? body + truncationMarker(original, body.length) : cut;
  };
  // Escaping only lengthens text: cut to the room, then shrink in proportion to what escaping added.
  let keep = room;
  let cut = cutTo(keep);
  while (escaped(cut) > room && keep > 0) {
    keep = Math.max(0, Math.floor((keep * room) / escaped(cut)) - 1);
    cut = cutTo(keep);
  }
  return failure(code, cut);
}

/** The envelope string of an outcome: the text, or `{"error","code"}`. */
export function envelope(outcome: CallOutcome): string {
  if (outcome.ok) return outcome.text;
  // QUEUE_FULL and QUOTA_EXCEEDED carry when to try again.
  if (outcome.retryAfterMs !== undefined)
    return JSON.stringify({ error: outcome.message, code: outcome.code, retryAfterMs: outcome.retryAfterMs });
  return JSON.stringify({ error: outcome.message, code: outcome.code });
}
