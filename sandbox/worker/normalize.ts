/**
 * Result normalization shared by the worker (which caps before sending, so a
 * huge result never crosses the boundary) and the host (which re-checks).
 */

import { codedError } from '../../core/errors.js';

/** What a handler must return, said once for every TOOL_RESULT_INVALID message. */
const WHAT_TO_RETURN = 'A handler must return a string, a JSON value (object, array, number, boolean, null) or { content: [{ type: "text", text }] }';

function invalid(what: string): Error {
  return codedError('TOOL_RESULT_INVALID', `returned ${what}, which is not a tool result. ${WHAT_TO_RETURN}.`);
}

/** Binary data would serialize as {"0":98,…}: name it instead. */
function binaryName(value: unknown): string | undefined {
  if (value instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer)) return value.constructor.name;
  if (ArrayBuffer.isView(value)) return value.constructor.name;
  return undefined;
}

/**
 * A string as is; MCP-style `{ content: [{ type: 'text', text }] }` as its joined text; any
 * other JSON value as JSON. Throws TOOL_RESULT_INVALID for what is not a result: undefined,
 * a function or symbol, binary data (a Buffer or typed array, anywhere in the value), a
 * BigInt, or a circular structure.
 */
export function resultText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isTextContent(value)) return value.content.map((part) => (part.type === 'text' ? part.text : JSON.stringify(part))).join('\n');
  // Plain data (the common case) needs no replacer, which costs a call back into JS per key.
  if (isPlainJson(value, 0)) return JSON.stringify(value);
  if (value === undefined) return rejectResult('undefined (did the handler forget to return?)');
  if (typeof value === 'function' || typeof value === 'symbol') return rejectResult(`a ${typeof value}`);
  let json: string | undefined;
  try {
    json = JSON.stringify(value, function (this: Record<string, unknown>, key: string, item: unknown) {
      // `this[key]` is the value before its toJSON (a Buffer's turns it into { type, data }).
      const binary = binaryName(this[key]);
      if (binary) throw invalid(`${key ? `binary data at key "${key}"` : 'binary data'} (a ${binary}); decode it to text (e.g. buffer.toString('utf8')) or base64 first`);
      if (typeof item === 'bigint') throw invalid(`a BigInt${key ? ` at key "${key}"` : ''}; convert it to a string or number first`);
      return item;
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'TOOL_RESULT_INVALID') throw error;
    return rejectResult(`a value JSON cannot represent (${(error as Error).message.split('\n')[0]})`);
  }
  return json === undefined ? rejectResult(`${String(value)}`) : json;
}

/** Plain objects and arrays (no toJSON, no class) down to strings, finite numbers, booleans and null, shallower than 32 levels (so a cycle is never plain). */
function isPlainJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (depth >= 32) return false;
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return false;
        for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        if (key === 'toJSON' || !isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

function rejectResult(what: string): never {
  throw invalid(what);
}

function isTextContent(value: unknown): value is { content: Array<{ type: string; text: string }> } {
  if (typeof value !== 'object' || value === null) return false;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== 'content') return false;
  const content = (value as { content: unknown }).content;
  return Array.isArray(content) && content.every((part) => typeof part === 'object' && part !== null && typeof (part as { type?: unknown }).type === 'string');
}

/** The marker appended to a capped result; it names the original length. */
export function truncationMarker(originalLength: number, kept: number): string {
  return `\n[RESULT_TRUNCATED: showing ${kept} of ${originalLength} characters]`;
}

/** Cuts `text` to at most `max` characters including the marker. */
export function capText(text: string, max: number, originalLength = text.length): string {
  // Already within the cap (possibly cut and marked upstream): leave it as is.
  if (text.length <= max) return text;
  const marker = truncationMarker(originalLength, 0);
  const keep = Math.max(0, max - marker.length - 8);
  return text.slice(0, keep) + truncationMarker(originalLength, keep);
}
