/**
 * Host-side validation of what a process-tier child sends. Plugin code can
 * write to the channel's fd, so every frame is checked field by field and
 * rebuilt from checked parts before the host uses it; anything malformed is a
 * protocol violation that costs the child its life.
 */
import type { SerializedError } from '../../../boundary/errors.js';
import type { ChildFailure, ChildReply, ChildToHost, WorkerTask } from '../../../boundary/protocol.js';

/** Task ids are UUIDs; anything longer is not one. */
const MAX_ID_CHARS = 64;
/** Error messages from a child are cut to this length. */
const MAX_MESSAGE_CHARS = 8_000;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown, max = MAX_MESSAGE_CHARS): string => String(value).slice(0, max);

/** A frame from a child, checked; a string says what was wrong with it. */
export function checkChildFrame(message: unknown): ChildToHost | string {
  if (!isObject(message)) return 'a frame is not an object';
  switch (message.type) {
    case 'ready':
      return typeof message.pid === 'number' ? { type: 'ready', pid: message.pid } : 'ready frame without a pid';
    case 'rpc':
      return { type: 'rpc', data: message.data };
    case 'reply':
      if (typeof message.id !== 'string' || message.id.length > MAX_ID_CHARS) return 'reply frame without an id';
      return { type: 'reply', id: message.id, reply: message.reply as ChildReply };
    default:
      return `unknown frame type ${JSON.stringify(String(message.type)).slice(0, 60)}`;
  }
}

function checkError(value: unknown): SerializedError | undefined {
  if (!isObject(value)) return undefined;
  const error: SerializedError = { name: text(value.name ?? 'Error', 200), message: text(value.message ?? '') };
  if (typeof value.code === 'string') error.code = text(value.code, 100);
  return error;
}

function checkFailure(value: unknown): ChildFailure | undefined {
  if (!isObject(value)) return undefined;
  if (value.kind === 'timeout' && typeof value.timeoutMs === 'number')
    return { kind: 'timeout', timeoutMs: value.timeoutMs };
  if (value.kind === 'crashed')
    return { kind: 'crashed', message: text(value.message), outOfMemory: value.outOfMemory === true };
  return undefined;
}

/** A task's reply, checked against what that kind of task returns; undefined when malformed. */
export function checkReply(kind: WorkerTask['kind'], reply: unknown): ChildReply | undefined {
  if (!isObject(reply) || typeof reply.ok !== 'boolean') return undefined;
  if (!reply.ok) {
    if ('failure' in reply) {
      const failure = checkFailure(reply.failure);
      return failure && { ok: false, failure };
    }
    const error = checkError(reply.error);
    return error && { ok: false, error };
  }
  const value = reply.value;
  switch (kind) {
    case 'handler':
      if (!isObject(value) || typeof value.text !== 'string' || typeof value.originalLength !== 'number')
        return undefined;
      return { ok: true, value: { text: value.text, originalLength: value.originalLength } };
    case 'check':
      if (!isObject(value) || typeof value.ok !== 'boolean') return undefined;
      return {
        ok: true,
        value: value.ok ? { ok: true } : { ok: false, reason: text(value.reason ?? 'check failed', 1_000) },
      };
    case 'manifest':
      // normalizeManifest validates the manifest against its schema.
      return isObject(value) ? { ok: true, value } : undefined;
  }
}
