/**
 * A thread-tier worker once its runtime passed the pin check (worker-entry.ts): hands the
 * host its guarded RPC port and its inline port, then runs tasks with task-runner.ts, which
 * checks a plugin's pins (from workerData) before importing it. Plugin code shares this
 * worker's parent port, so the host checks everything that arrives there.
 */
import { MessageChannel, parentPort, workerData } from 'node:worker_threads';
import { wrap } from 'comlink/dist/esm/comlink.mjs';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { createTaskRunner, type HostLink, type InlineLink } from './task-runner.js';
import { changedPin, type WorkerPins } from '../../boundary/pins.js';
import type {
  CallAnswer,
  CancelMessage,
  NormalizedResult,
  InlineAnswer,
  InlineCall,
  InlineDone,
  InlineLog,
  InlineProgress,
  InlineReply,
  InlineRequest,
  PoolReply,
  RpcPortMessage,
  WorkerReply,
  WorkerTask,
} from '../../boundary/protocol.js';
import { poolReply } from '../../boundary/pool-reply.js';

const channel = new MessageChannel();
const inline = new MessageChannel();
// Posted before any task runs; the host exposes its guarded API on the other end, and sends
// nested calls to run here on the inline port.
parentPort?.postMessage(
  { type: 'toolshed:rpc-port', port: channel.port2, inline: inline.port2 } satisfies RpcPortMessage,
  [channel.port2, inline.port2],
);
/**
 * Nested calls of the tasks running here go to the host on the inline port (InlineCall), and
 * the replies of calls the host handed back to run here ride along with the next one; what no
 * call carries within the current turn of the event loop is sent on its own (InlineDone), and
 * before a task's own reply.
 */
const answers = new Map<number, (answer: CallAnswer) => void>();
let nextCall = 1;
let done: InlineReply[] = [];
let flushQueued = false;
function flush(): void {
  flushQueued = false;
  if (!done.length) return;
  inline.port1.postMessage({ type: 'toolshed:done', done } satisfies InlineDone);
  done = [];
}
const inlineLink: InlineLink = {
  log: (callId, message, level) =>
    inline.port1.postMessage({ type: 'toolshed:log', callId, message, level } satisfies InlineLog),
  progress: (callId, done, total) =>
    inline.port1.postMessage({
      type: 'toolshed:progress',
      callId,
      done,
      ...(total === undefined ? {} : { total }),
    } satisfies InlineProgress),
  callTool: (callId, name, args) =>
    new Promise<CallAnswer>((resolve) => {
      const id = nextCall++;
      answers.set(id, resolve);
      inline.port1.postMessage({ type: 'toolshed:call', id, callId, name, args, done } satisfies InlineCall);
      done = [];
    }),
  done: (id, reply) => {
    done.push({ id, reply });
    if (!flushQueued) {
      flushQueued = true;
      setImmediate(flush);
    }
  },
};
const pinned = ((workerData ?? {}) as WorkerPins).plugins ?? {};
// A plugin the host pinned is checked before its first import here; others (none in a pool the host made) are not
// pinned.
const verify = (entry: string) => {
  const pins = pinned[entry];
  return pins ? changedPin(pins) : undefined;
};
const runner = createTaskRunner(wrap(nodeEndpoint(channel.port1 as never)) as unknown as HostLink, inlineLink, verify);

channel.port1.on('message', (message: unknown) => {
  const m = message as Partial<CancelMessage> | null;
  if (m?.type === 'toolshed:cancel' && typeof m.callId === 'string') runner.cancel(m.callId);
});
// The RPC port must not keep an idle worker alive (unref after the last listener: adding one refs it).
channel.port1.unref();

inline.port1.on('message', (message: unknown) => {
  const m = (message ?? {}) as Partial<InlineAnswer> & Partial<InlineRequest>;
  // The answer to a nested call made from here.
  if (m.type === 'toolshed:answer') {
    const resolve = answers.get(m.id as number);
    answers.delete(m.id as number);
    resolve?.(m.answer as CallAnswer);
    return;
  }
  // A nested call from a task running here, to a plugin of this pool: run it beside its caller.
  const { id, task } = m;
  if (typeof id !== 'number' || task?.kind !== 'handler') return;
  void runner.run(task).then((reply) => {
    // Replies of calls this one handed off go out first.
    flush();
    // A handler task's reply carries a NormalizedResult (task-runner.ts).
    inline.port1.postMessage({ id, reply: reply as WorkerReply<NormalizedResult> } satisfies InlineReply);
  });
});
inline.port1.unref();

/**
 * Piscina task entry: every outcome is a `WorkerReply` (a handler's plain text as a `PoolReply`),
 * so a rejection always means the worker itself failed.
 */
export default function run(task: WorkerTask): Promise<PoolReply> {
  let reply: Promise<WorkerReply>;
  try {
    reply = runner.run(task);
  } catch (error) {
    flush();
    return Promise.reject(error);
  }
  // Replies of handed-off calls go out before this task's own: once it returns, this thread may wait in Atomics.wait.
  // (`then` with two plain functions rather than an async function: one promise fewer per task.)
  return reply.then(task.kind === 'handler' ? flushedHandler : flushedWith, flushedAfter);
}

function flushedWith(reply: WorkerReply): WorkerReply {
  flush();
  return reply;
}

function flushedHandler(reply: WorkerReply): PoolReply {
  flush();
  return poolReply(reply as WorkerReply<NormalizedResult>);
}

function flushedAfter(error: unknown): never {
  flush();
  throw error;
}
