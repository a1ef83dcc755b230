/**
 * `ctx.session`'s rules, in one place for both its users: the host, which carries out a plugin's
 * operations on the state store (core/call/plugin-state.ts), and `createTestContext()`, which
 * carries them out on a map of its own. So a plugin's unit test meets the limits the host enforces.
 *
 * One plugin's values in one session are the fields of one map in the store; each field holds
 * `<expiry ms>:<JSON text>`, so every value has its own time to live while the map as a whole
 * lives `maxTtlMs` after its last write.
 */
import type { SessionAnswer, SessionRequest } from './protocol.js';

/** The longest key, in characters. */
const MAX_SESSION_KEY_CHARS = 256;
/** The largest value, in bytes of JSON text (UTF-8). */
const MAX_SESSION_VALUE_BYTES = 256 * 1024;
/** The most one plugin may keep in one session: keys and values, in bytes. */
const MAX_SESSION_TOTAL_BYTES = 1024 * 1024;

/** The map operations of a state store that `ctx.session` uses. */
export interface SessionMaps {
  mapGet(key: string): Promise<Record<string, string>>;
  mapSet(key: string, fields: Readonly<Record<string, string>>, ttlMs: number): Promise<void>;
  mapDelete(key: string, fields: readonly string[]): Promise<void>;
}

/** Where one plugin's values for one session live, and how long they may. */
export interface SessionScope {
  maps: SessionMaps;
  /** the store key of the plugin's map in this session */
  mapKey: string;
  /** the default and longest time to live (config `state.sessionTtlMs`) */
  maxTtlMs: number;
  /** the clock of expiry (ms); each replica's own wall clock */
  now(): number;
}

function refused(message: string): SessionAnswer {
  return { ok: false, code: 'STATE_REFUSED', message: `ctx.session: ${message}` };
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Why `key` is not a key, or undefined. */
function badKey(key: unknown): string | undefined {
  if (typeof key !== 'string' || key.length === 0) return 'a key must be a non-empty string';
  if (key.length > MAX_SESSION_KEY_CHARS)
    return `a key is at most ${MAX_SESSION_KEY_CHARS} characters; this one has ${key.length}`;
  return undefined;
}

/** Why `text` is not a value's JSON text, or undefined. */
export function badValue(text: unknown): string | undefined {
  if (typeof text !== 'string')
    return 'the value is not JSON (undefined, a function, a symbol, a BigInt or a circular object)';
  const bytes = utf8Bytes(text);
  if (bytes > MAX_SESSION_VALUE_BYTES)
    return `a value is at most ${MAX_SESSION_VALUE_BYTES} bytes of JSON; this one has ${bytes}`;
  try {
    JSON.parse(text);
  } catch {
    return 'the value is not JSON text';
  }
  return undefined;
}

/** The time to live a `set` asked for, capped, or why it is not one. */
function ttlOf(ttlMs: unknown, maxTtlMs: number): number | string {
  if (ttlMs === undefined) return maxTtlMs;
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0)
    return 'ttlMs must be a positive number of milliseconds';
  return Math.min(Math.ceil(ttlMs), maxTtlMs);
}

/** A stored field's expiry and JSON text. */
function entry(field: string): { expires: number; text: string } {
  const colon = field.indexOf(':');
  return { expires: Number(field.slice(0, colon)), text: field.slice(colon + 1) };
}

/** The JSON text a stored field holds at `now`, or undefined once it expired. */
export function liveText(field: string, now: number): string | undefined {
  const { expires, text } = entry(field);
  return expires > now ? text : undefined;
}

/** Carries out one operation in `scope`; a refusal is a value, a store failure rejects. */
export async function sessionOperation(scope: SessionScope, request: SessionRequest): Promise<SessionAnswer> {
  const { maps, mapKey } = scope;
  const wrongKey = badKey(request.key);
  if (wrongKey) return refused(wrongKey);
  const key = request.key;
  if (request.op === 'delete') {
    await maps.mapDelete(mapKey, [key]);
    return { ok: true };
  }
  if (request.op === 'get') {
    const field = (await maps.mapGet(mapKey))[key];
    if (field === undefined) return { ok: true };
    const text = liveText(field, scope.now());
    if (text !== undefined) return { ok: true, value: text };
    await maps.mapDelete(mapKey, [key]);
    return { ok: true };
  }
  const wrongValue = badValue(request.value);
  if (wrongValue) return refused(`set('${key}'): ${wrongValue}`);
  const ttlMs = ttlOf(request.ttlMs, scope.maxTtlMs);
  if (typeof ttlMs === 'string') return refused(`set('${key}'): ${ttlMs}`);
  return write(scope, key, request.value!, ttlMs);
}

/** A `set` within the plugin's total for the session: expired fields are dropped, and do not count. */
async function write(scope: SessionScope, key: string, text: string, ttlMs: number): Promise<SessionAnswer> {
  const { maps, mapKey } = scope;
  const now = scope.now();
  const expired: string[] = [];
  let total = utf8Bytes(key) + utf8Bytes(text);
  for (const [other, field] of Object.entries(await maps.mapGet(mapKey))) {
    if (other === key) continue;
    const { expires, text: otherText } = entry(field);
    if (expires <= now) expired.push(other);
    else total += utf8Bytes(other) + utf8Bytes(otherText);
  }
  if (total > MAX_SESSION_TOTAL_BYTES) {
    return refused(
      `set('${key}'): a plugin keeps at most ${MAX_SESSION_TOTAL_BYTES} bytes in a session; this would make ` +
        `${total}. Delete what is no longer needed.`,
    );
  }
  await maps.mapSet(mapKey, { [key]: `${now + ttlMs}:${text}` }, scope.maxTtlMs);
  if (expired.length) await maps.mapDelete(mapKey, expired);
  return { ok: true };
}
