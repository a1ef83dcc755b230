/**
 * A task's end as its reply: a check's verdict in the one shape the host reads, a handler's
 * value as capped text, and an error serialized and bounded before it leaves the realm.
 */
import { serializeError } from '../../boundary/errors.js';
import { capText, permissionFailure, resultText } from '../../boundary/normalize.js';
import type { CheckVerdict, NormalizedResult, HandlerTask, WorkerReply, WorkerTask } from '../../boundary/protocol.js';
import type { ProtectedPath } from '../../boundary/plugin-api.js';

/** A failed handler's stack is cut to this before it leaves the realm. */
const MAX_STACK_CHARS = 8_000;

/** What a check returned, as a verdict: true, false or `{ ok, reason }`; anything else fails with what it was. */
export function checkVerdict(verdict: unknown): CheckVerdict {
  if (verdict === true) return { ok: true };
  if (verdict === false) return { ok: false, reason: 'check returned false' };
  if (typeof verdict === 'object' && verdict !== null && typeof (verdict as CheckVerdict).ok === 'boolean') {
    const { ok, reason } = verdict as CheckVerdict;
    return ok ? { ok } : { ok, reason: typeof reason === 'string' && reason ? reason : 'check failed' };
  }
  return { ok: false, reason: `check returned ${JSON.stringify(verdict)}; expected true, false or { ok, reason }` };
}

/** A handler's value as its output: the text, capped at the task's maxResultChars, and its length before. */
export function handlerText(task: HandlerTask, value: unknown): NormalizedResult {
  const text = resultText(value);
  return { text: capText(text, task.maxResultChars), originalLength: text.length };
}

/**
 * A task's error as its reply; a write to one of `protect` (the host's protected paths) says so. A handler's error
 * message is bounded like its result before it crosses to the host (the stack repeats it).
 */
export function failedReply(
  task: WorkerTask,
  error: unknown,
  protect: readonly ProtectedPath[] | undefined,
): WorkerReply {
  const serialized = serializeError(permissionFailure(error, protect));
  if (task.kind === 'handler') {
    serialized.message = capText(serialized.message, task.maxResultChars);
    if (serialized.stack !== undefined) serialized.stack = serialized.stack.slice(0, MAX_STACK_CHARS);
  }
  return { ok: false, error: serialized };
}
