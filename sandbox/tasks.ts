/** Builds the worker tasks every tier sends, each with an unguessable call id. */
import { randomUUID } from 'node:crypto';
import type { CheckTask, HandlerTask, TaskScope } from './protocol.js';
import type { CheckRequest, HandlerRequest } from './runner.js';

/** A scope with no file roots and no options (manifest extraction, tests). */
export const EMPTY_SCOPE_PARTS = Object.freeze({ roots: Object.freeze({ read: [], write: [] }), options: Object.freeze({}) });

/** The task that runs one custom check of the plugin at `entry` in `scope`; `env` is its grant when the pool is shared. */
export function checkTask(entry: string, scope: TaskScope, request: CheckRequest, env?: Record<string, string>): CheckTask {
  const task: CheckTask = { kind: 'check', entry, checkId: request.checkId, callId: randomUUID(), timeoutMs: request.timeoutMs, cwd: scope.cwd, roots: scope.roots, options: scope.options };
  if (env) task.env = env;
  return task;
}

/** The task that runs one handler of the plugin at `entry` in `scope`; `env` is its grant when the pool is shared. */
export function handlerTask(entry: string, scope: TaskScope, request: HandlerRequest, env?: Record<string, string>): HandlerTask {
  const task: HandlerTask = {
    kind: 'handler',
    entry,
    tool: request.tool,
    args: request.args,
    callId: randomUUID(),
    timeoutMs: request.timeoutMs,
    maxResultChars: request.maxResultChars,
    cwd: scope.cwd,
    roots: scope.roots,
    options: scope.options,
  };
  if (request.sessionId !== undefined) task.sessionId = request.sessionId;
  if (env) task.env = env;
  return task;
}
