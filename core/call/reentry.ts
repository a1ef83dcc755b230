/**
 * Calls back into a busy plugin. A handler that calls a tool through
 * `ctx.callTool` keeps its worker while it waits. When every worker of a
 * plugin is held by such waiting calls and a call in their chain needs one
 * more worker of that plugin, it could only start once they finish — which
 * they cannot do before it does: it would wait until its timeout. That call
 * is refused at once instead (CALL_WOULD_DEADLOCK).
 */
import type { Runner } from '../runners/runner.js';
import type { CallContext } from './chain.js';
import type { ToolRecord } from '../load/types.js';

/** Calls holding a worker of each runner while they wait for a nested call, by the order they began waiting. */
const waiting = new WeakMap<Runner, Set<number>>();
let nextWait = 1;

/**
 * Runs `nested` (a call made by the running `caller`), counting the caller's
 * worker as held by a waiting call meanwhile. `nested` receives the wait's
 * sequence number: the call it makes counts only the waits that began no
 * later than its own, so two calls that begin waiting at once are ordered and
 * the first is never refused because of the second.
 */
export async function whileWaiting<T>(caller: ToolRecord, nested: (waitSeq: number) => Promise<T>): Promise<T> {
  const runner = caller.plugin.runner;
  const seq = nextWait++;
  let held = waiting.get(runner);
  if (!held) waiting.set(runner, (held = new Set()));
  held.add(seq);
  try {
    return await nested(seq);
  } finally {
    held.delete(seq);
  }
}

/**
 * The number of workers of `target`'s plugin, when a call to it in `context`
 * could never get one: its chain already holds one of that plugin's workers
 * (it calls back into it) and every worker is held by a call that began
 * waiting no later than this call was made.
 */
export function deadlockedWorkers(context: CallContext, target: ToolRecord): number | undefined {
  const runner = target.plugin.runner;
  if (!context.records.some((caller) => caller.plugin.runner === runner)) return undefined;
  const madeAt = context.waitSeq ?? Infinity;
  let held = 0;
  for (const seq of waiting.get(runner) ?? []) if (seq <= madeAt) held++;
  const { capacity } = runner.stats();
  return held >= capacity ? capacity : undefined;
}
