/** Builds the worker tasks every tier sends, each with an unguessable call id. */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { CheckTask, HandlerTask, TaskScope } from './protocol.js';
import type { CheckRequest, HandlerRequest } from './runner.js';

/** A scope with no file roots and no options (manifest extraction, tests). */
export const EMPTY_SCOPE_PARTS = Object.freeze({ roots: Object.freeze({ read: [], write: [] }), options: Object.freeze({}) });

/** What a packed scope (`CheckTask.scope`) holds. */
export interface PackedScope {
  roots: TaskScope['roots'];
  options: TaskScope['options'];
  env?: Record<string, string>;
}

/**
 * A plugin's roots, options and env grant as one JSON string, for `CheckTask.scope`; undefined
 * when JSON would not carry them exactly as a structured clone does (then tasks carry them as they are).
 */
export function packScope(scope: Omit<TaskScope, 'cwd'>, env?: Record<string, string>): string | undefined {
  const value: PackedScope = { roots: scope.roots, options: scope.options, ...(env ? { env } : {}) };
  try {
    const text = JSON.stringify(value);
    return isDeepStrictEqual(JSON.parse(text), structuredClone(value)) ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The task that runs one custom check of the plugin at `entry` in `scope`; `env` is its grant
 * when the pool is shared; `packed` (packScope of the same scope and env) is sent instead of them.
 */
export function checkTask(entry: string, scope: TaskScope, request: CheckRequest, env?: Record<string, string>, packed?: string): CheckTask {
  if (packed !== undefined) return { kind: 'check', entry, checkId: request.checkId, callId: randomUUID(), timeoutMs: request.timeoutMs, cwd: scope.cwd, scope: packed };
  const task: CheckTask = { kind: 'check', entry, checkId: request.checkId, callId: randomUUID(), timeoutMs: request.timeoutMs, cwd: scope.cwd, roots: scope.roots, options: scope.options };
  if (env) task.env = env;
  return task;
}

/**
 * The task that runs one handler of the plugin at `entry` in `scope`; `env` is its grant when
 * the pool is shared; `packed` (packScope of the same scope and env) is sent instead of them.
 */
export function handlerTask(entry: string, scope: TaskScope, request: HandlerRequest, env?: Record<string, string>, packed?: string): HandlerTask {
  const task: HandlerTask =
    packed !== undefined
      ? { kind: 'handler', entry, tool: request.tool, args: request.args, callId: randomUUID(), timeoutMs: request.timeoutMs, maxResultChars: request.maxResultChars, cwd: scope.cwd, scope: packed }
      : {
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
  if (env && packed === undefined) task.env = env;
  return task;
}
