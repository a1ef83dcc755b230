/**
 * Calls back into a busy plugin. A handler that calls a tool through
 * `ctx.callTool` keeps its worker while it waits. When every worker of a
 * plugin is held by such waiting calls and a call in their chain needs one
 * more worker of that plugin, it could only start once they finish — which
 * they cannot do before it does: it would wait until its timeout. That call
 * is refused at once instead (CALL_WOULD_DEADLOCK).
 */
import type { Runner } from '../../sandbox/runner.js';
import type { CallContext } from './chain.js';
import type { ToolRecord } from '../types.js';

/** Calls holding a worker of each runner while they wait for a nested call. */
const waiting = new WeakMap<Runner, number>();

/** Runs `nested` (a call made by the running `caller`), counting the caller's worker as held by a waiting call meanwhile. */
export async function whileWaiting<T>(caller: ToolRecord, nested: () => Promise<T>): Promise<T> {
  const runner = caller.plugin.runner;
  waiting.set(runner, (waiting.get(runner) ?? 0) + 1);
  try {
    return await nested();
  } finally {
    waiting.set(runner, waiting.get(runner)! - 1);
  }
}

/**
 * The number of workers of `target`'s plugin, when a call to it in `context`
 * could never get one: its chain already holds one of that plugin's workers
 * (it calls back into it) and every worker is held by a waiting call.
 */
export function deadlockedWorkers(context: CallContext, target: ToolRecord): number | undefined {
  const runner = target.plugin.runner;
  if (!context.records.some((caller) => caller.plugin.runner === runner)) return undefined;
  const held = waiting.get(runner) ?? 0;
  const { capacity } = runner.stats();
  return held >= capacity ? capacity : undefined;
}
