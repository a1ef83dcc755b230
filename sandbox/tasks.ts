/** Builds the worker tasks every tier sends, each with an unguessable call id. */
import { randomUUID } from 'node:crypto';
import type { CheckTask, HandlerTask } from './protocol.js';
import type { CheckRequest, HandlerRequest } from './runner.js';

/** The task that runs one custom check of the plugin at `entry`; `env` is its grant when the pool is shared. */
export function checkTask(entry: string, cwd: string, request: CheckRequest, env?: Record<string, string>): CheckTask {
  const task: CheckTask = { kind: 'check', entry, checkId: request.checkId, callId: randomUUID(), timeoutMs: request.timeoutMs, cwd };
  if (env) task.env = env;
  return task;
}

/** The task that runs one handler of the plugin at `entry`; `env` is its grant when the pool is shared. */
export function handlerTask(entry: string, cwd: string, request: HandlerRequest, env?: Record<string, string>): HandlerTask {
  const task: HandlerTask = {
    kind: 'handler',
    entry,
    tool: request.tool,
    args: request.args,
    callId: randomUUID(),
    timeoutMs: request.timeoutMs,
    maxResultChars: request.maxResultChars,
    cwd,
  };
  if (request.sessionId !== undefined) task.sessionId = request.sessionId;
  if (env) task.env = env;
  return task;
}
