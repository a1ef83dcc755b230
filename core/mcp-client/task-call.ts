/**
 * A call of a tool that must run as a task (`execution.taskSupport: 'required'`), on the
 * 2025-11-25 revision's task methods: `tools/call` with `task` answers with the task, and
 * `tasks/result` waits for its result (the server sends what it needs meanwhile, elicitation
 * among it, as requests of its own). Past the call's deadline, or when the caller cancels, the
 * task is cancelled (`tasks/cancel`). The 2026-07-28 revision has no tasks in its core, so a
 * connection on it cannot call such a tool (tools.ts hides it there).
 */
import type { Client } from '@modelcontextprotocol/client';

/** A Standard Schema that takes a reply as it is: the task methods are not in the SDK's 2026 vocabulary. */
const ANY = {
  '~standard': {
    version: 1,
    vendor: 'toolshed',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  },
} as const;

/** How long toolshed asks the server to keep a finished task's result (it reads it at once). */
const TASK_TTL_MS = 60_000;

/** Whether the server says it runs `tools/call` as a task (its `tasks.requests.tools.call` capability). */
export function callsAsTasks(client: Client): boolean {
  if (client.getProtocolEra() === 'modern') return false;
  const tasks = (
    client.getServerCapabilities() as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined
  )?.tasks;
  return tasks?.requests?.tools?.call !== undefined;
}

/** Calls `name` as a task and waits for its result; rejects like a plain call (timeout, abort, the server's error). */
export async function callAsTask(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: { timeout: number; signal?: AbortSignal },
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + options.timeout;
  const created = (await client.request(
    { method: 'tools/call', params: { name, arguments: args, task: { ttl: TASK_TTL_MS } } },
    ANY,
    options,
  )) as { task?: { taskId?: unknown } };
  const taskId = created.task?.taskId;
  // A server may run the call plainly after all: then this is its result.
  if (typeof taskId !== 'string') return created as Record<string, unknown>;
  try {
    return (await client.request({ method: 'tasks/result', params: { taskId } }, ANY, {
      timeout: Math.max(1, deadline - Date.now()),
      ...(options.signal ? { signal: options.signal } : {}),
    })) as Record<string, unknown>;
  } catch (error) {
    // The task runs on without its caller: stop it (best effort; the call's own failure is what counts).
    void client.request({ method: 'tasks/cancel', params: { taskId } }, ANY, { timeout: 5_000 }).catch(() => {});
    throw error;
  }
}
