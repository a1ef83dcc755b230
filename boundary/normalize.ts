/**
 * Result normalization shared by the worker (which caps before sending, so a
 * huge result never crosses the boundary) and the host (which re-checks).
 */

import { codedError } from './errors.js';
import { protectedBy, protectedMessage } from './protected.js';
import type { ProtectedPath } from './plugin-api.js';

/** What a handler must return, said once for every TOOL_RESULT_INVALID message. */
const WHAT_TO_RETURN =
  'A handler must return a string, a JSON value (object, array, number, boolean, null) or { content: [{ type: ' +
  '"text", text }] }';

function invalid(what: string): Error {
  return codedError('TOOL_RESULT_INVALID', `returned ${what}, which is not a tool result. ${WHAT_TO_RETURN}.`);
}

/** Binary data would serialize as {"0":98,…}: name it instead. */
function binaryName(value: unknown): string | undefined {
  if (value instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer))
    return value.constructor.name;
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
  if (isTextContent(value))
    return value.content.map((part) => (part.type === 'text' ? part.text : JSON.stringify(part))).join('\n');
  // Plain data (the common case) needs no replacer, which costs a call back into JS per key.
  if (isPlainJson(value, 0)) return JSON.stringify(value);
  if (value === undefined) return rejectResult('undefined (did the handler forget to return?)');
  if (typeof value === 'function' || typeof value === 'symbol') return rejectResult(`a ${typeof value}`);
  let json: string | undefined;
  try {
    json = JSON.stringify(value, function (this: Record<string, unknown>, key: string, item: unknown) {
      // `this[key]` is the value before its toJSON (a Buffer's turns it into { type, data }).
      const binary = binaryName(this[key]);
      if (binary)
        throw invalid(
          `${key ? `binary data at key "${key}"` : 'binary data'} (a ${binary}); decode it to text (e.g. ` +
            `buffer.toString('utf8')) or base64 first`,
        );
      if (typeof item === 'bigint')
        throw invalid(`a BigInt${key ? ` at key "${key}"` : ''}; convert it to a string or number first`);
      return item;
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'TOOL_RESULT_INVALID') throw error;
    return rejectResult(`a value JSON cannot represent (${(error as Error).message.split('\n')[0]})`);
  }
  return json === undefined ? rejectResult(`${String(value)}`) : json;
}

/**
 * Plain objects and arrays (no toJSON, no class) down to strings, finite numbers, booleans and null, shallower than 32
 * levels (so a cycle is never plain).
 */
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
  return (
    Array.isArray(content) &&
    content.every(
      (part) => typeof part === 'object' && part !== null && typeof (part as { type?: unknown }).type === 'string',
    )
  );
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

/** The grant key that opens each of Node's permission-model scopes to an untrusted plugin. */
const GRANT_OF: Readonly<Record<string, { grant: string; verb: string }>> = {
  FileSystemRead: { grant: 'fsRead', verb: 'read' },
  FileSystemWrite: { grant: 'fsWrite', verb: 'write' },
};

type AccessDenied = Error & { code: 'ERR_ACCESS_DENIED'; permission?: unknown; resource?: unknown };

function accessDenied(error: unknown): AccessDenied | undefined {
  return error instanceof Error && (error as { code?: unknown }).code === 'ERR_ACCESS_DENIED'
    ? (error as AccessDenied)
    : undefined;
}

/**
 * An EROFS on a protected path (a sandbox mounts them read-only), thrown itself or as the
 * `cause`, as PERMISSION_DENIED naming the path and why; anything else undefined.
 */
function readOnlyProtected(error: unknown, protect: readonly ProtectedPath[] | undefined): Error | undefined {
  for (const candidate of [error, (error as { cause?: unknown } | null)?.cause]) {
    if (!(candidate instanceof Error) || (candidate as { code?: unknown }).code !== 'EROFS') continue;
    const target = (candidate as { path?: unknown }).path;
    if (typeof target !== 'string') continue;
    const held = protectedBy(target, protect);
    if (!held) continue;
    return Object.assign(codedError('PERMISSION_DENIED', protectedMessage(target, held, target), { cause: error }), {
      data: { path: target, protected: held },
    });
  }
  return undefined;
}

/**
 * A failure caused by Node's permission model (ERR_ACCESS_DENIED, thrown itself or as the
 * `cause` of the plugin's own error) as PERMISSION_DENIED, whose message names the permission
 * and the path and says how the operator grants it (`data`: `{ permission, path?, grant? }`).
 * Node's own message says only "Access to this API has been restricted". Anything else is
 * returned as is.
 */
export function permissionFailure(error: unknown, protect?: readonly ProtectedPath[]): unknown {
  const readOnly = readOnlyProtected(error, protect);
  if (readOnly) return readOnly;
  const denied = accessDenied(error) ?? accessDenied((error as { cause?: unknown } | null)?.cause);
  if (!denied) return error;
  const permission = typeof denied.permission === 'string' ? denied.permission : undefined;
  const resource = typeof denied.resource === 'string' ? denied.resource : undefined;
  const scope = permission ? GRANT_OF[permission] : undefined;
  const held = resource !== undefined && scope?.grant === 'fsWrite' ? protectedBy(resource, protect) : undefined;
  let what: string;
  if (held && resource) {
    // No grant to ask for: a protected path stays read-only whatever the plugin is granted.
    what = protectedMessage(resource, held, resource);
    const message = denied === error ? what : `${(error as Error).message}: ${what}`;
    return Object.assign(codedError('PERMISSION_DENIED', message, { cause: error }), {
      data: { permission: permission ?? null, path: resource, protected: held },
    });
  } else if (scope && resource) {
    what =
      `Permission denied: the plugin may not ${scope.verb} ${resource} (Node's permission model refused ` +
      `${permission}). ` +
      (`The operator grants it in this plugin's entry of the toolshed config's plugins: grant: { ${scope.grant}: ` +
        `['${resource}'] } (or a folder above it)`) +
      (scope.grant === 'fsWrite' ? ', which also allows reading it.' : '.');
  } else {
    // Processes, workers, addons, and the network on Node 25+ (whose error carries no `permission`).
    what =
      `Permission denied: ${denied.message}${permission ? ` (${permission})` : ''}. ` +
      ("An untrusted plugin may use the network only with the operator's grant: { network: true }, and may not " +
        'start processes, workers or addons (only a trusted plugin may).');
  }
  const message = denied === error ? what : `${(error as Error).message}: ${what}`;
  return Object.assign(codedError('PERMISSION_DENIED', message, { cause: error }), {
    data: {
      permission: permission ?? null,
      ...(resource ? { path: resource } : {}),
      ...(scope ? { grant: scope.grant } : {}),
    },
  });
}
