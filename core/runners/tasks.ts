/** Builds the worker tasks every tier sends, each with an unguessable call id. */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { CheckTask, HandlerTask, PackedScope, TaskScope } from '../../boundary/protocol.js';
import type { CheckRequest, HandlerRequest } from './runner.js';

/** A scope with no file roots and no options (manifest extraction, tests). */
export const EMPTY_SCOPE_PARTS = Object.freeze({
  roots: Object.freeze({ read: [], write: [] }),
  options: Object.freeze({}),
});

/**
 * A plugin's roots, options and env grant as one JSON string, for `CheckTask.scope`; undefined
 * when JSON would not carry them exactly as a structured clone does (then tasks carry them as they are).
 */
export function packScope(scope: Omit<TaskScope, 'cwd'>, env?: Record<string, string>): string | undefined {
  const value: PackedScope = { roots: scope.roots, options: scope.options, ...(env ? { env } : {}) };
  try {
    // Roots (paths, protected paths) and env are strings by type; only the operator's options can hold
    // what JSON would change (undefined, a Date, a Map), so only they are compared after a round trip.
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(scope.options)), structuredClone(scope.options))) return undefined;
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/**
 * Puts the plugin's scope on `task`: `packed` (packScope of the same scope and env) when given,
 * else its roots and options, and `env`, its grant when the pool is shared.
 */
function scoped<T extends CheckTask | HandlerTask>(
  task: T,
  scope: TaskScope,
  env: Record<string, string> | undefined,
  packed: string | undefined,
): T {
  if (packed !== undefined) {
    task.scope = packed;
    return task;
  }
  task.roots = scope.roots;
  task.options = scope.options;
  if (env) task.env = env;
  return task;
}

/** The task that runs one custom check of the plugin at `entry` in `scope` (see `scoped` for `env` and `packed`). */
export function checkTask(
  entry: string,
  scope: TaskScope,
  request: CheckRequest,
  env?: Record<string, string>,
  packed?: string,
): CheckTask {
  return scoped(
    {
      kind: 'check',
      entry,
      checkId: request.checkId,
      callId: randomUUID(),
      timeoutMs: request.timeoutMs,
      cwd: scope.cwd,
    },
    scope,
    env,
    packed,
  );
}

/** The task that runs one handler of the plugin at `entry` in `scope` (see `scoped` for `env` and `packed`). */
export function handlerTask(
  entry: string,
  scope: TaskScope,
  request: HandlerRequest,
  env?: Record<string, string>,
  packed?: string,
): HandlerTask {
  const task: HandlerTask = {
    kind: 'handler',
    entry,
    tool: request.tool,
    args: request.args,
    callId: randomUUID(),
    timeoutMs: request.timeoutMs,
    maxResultChars: request.maxResultChars,
    cwd: scope.cwd,
  };
  if (request.sessionId !== undefined) task.sessionId = request.sessionId;
  if (request.secrets) task.secrets = request.secrets;
  return scoped(task, scope, env, packed);
}
