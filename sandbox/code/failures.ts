/* Turning engine and script failures into JSON-serialisable CodeError values. */
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import { SCRIPT_FILENAME } from './bootstrap.js';
import { CodeErrorCode, type CodeError, type CodeResult } from './types.js';

/** Frames of a script error's stack kept in CodeResult.error.stack. */
const MAX_STACK_FRAMES = 10;

/** The result for a run the host aborted; a TimeoutError reason counts as a timeout. */
export function abortedResult(
  reason: unknown,
  base: { output: string; toolCalls: number; durationMs: number },
): CodeResult {
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    const error = {
      name: 'TimeoutError',
      message: `The run was aborted by the host: ${reason.message}`,
      code: CodeErrorCode.timeout,
    };
    return { status: 'timeout', result: null, ...base, error };
  }
  const why = reason === undefined ? '' : `: ${messageOf(reason)}`;
  const error = { name: 'AbortError', message: `The run was aborted by the host${why}.`, code: CodeErrorCode.aborted };
  return { status: 'error', result: null, ...base, error };
}

/** Reads the bootstrap's JSON description of a script failure. */
export function parseError(json: string): { error: CodeError; thrownNull: boolean } {
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value === 'object' && value !== null) {
      const fields = value as Record<string, unknown>;
      const error: CodeError = {
        name: typeof fields.name === 'string' ? fields.name : 'Error',
        message: typeof fields.message === 'string' ? fields.message : 'Unknown error',
      };
      if (typeof fields.code === 'string') error.code = fields.code;
      const stack = typeof fields.stack === 'string' ? scriptFrames(fields.stack) : '';
      if (stack !== '') error.stack = stack;
      return { error, thrownNull: fields.thrownNull === true };
    }
  } catch {
    // Fall through: the bootstrap always sends JSON, so this is only reached if it was tampered with.
  }
  return { error: { name: 'Error', message: 'The script failed with an unreadable error.' }, thrownNull: false };
}

/** Reads name, message and stack of an error the engine raised outside the script's own handlers. */
export function describeHandle(context: QuickJSContext, handle: QuickJSHandle): CodeError {
  const read = (key: string): string | undefined => {
    try {
      const value = context.getProp(handle, key);
      try {
        return context.typeof(value) === 'string' ? context.getString(value) : undefined;
      } finally {
        value.dispose();
      }
    } catch {
      return undefined;
    }
  };
  const error: CodeError = { name: read('name') ?? 'Error', message: read('message') ?? 'Unknown error' };
  const stack = scriptFrames(read('stack') ?? '');
  if (stack !== '') error.stack = stack;
  return error;
}

/** Keeps the frames of the submitted code (the bootstrap's are noise to the model), at most ten. */
function scriptFrames(stack: string): string {
  const frames = stack.split('\n').filter((line) => line.includes(SCRIPT_FILENAME));
  const kept = frames.slice(0, MAX_STACK_FRAMES).map((line) => line.trim());
  if (frames.length > kept.length) kept.push(`... ${frames.length - kept.length} more frames`);
  return kept.join('\n');
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
