/**
 * The Piscina worker entry of every thread-tier pool: hands the host its
 * guarded RPC port and its inline port at startup, then runs tasks with
 * task-runner.ts. Plugin code shares this worker's parent port, so the host
 * checks everything that arrives there.
 */
import { MessageChannel, parentPort } from 'node:worker_threads';
import { wrap } from 'comlink/dist/esm/comlink.mjs';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { createTaskRunner, type HostLink } from './task-runner.js';
import type { InlineRequest, WorkerReply, WorkerTask } from '../protocol.js';

const channel = new MessageChannel();
const inline = new MessageChannel();
// Posted before any task runs; the host exposes its guarded API on the other end, and sends
// nested calls to run here on the inline port.
parentPort?.postMessage({ type: 'toolshed:rpc-port', port: channel.port2, inline: inline.port2 }, [channel.port2, inline.port2]);
const runner = createTaskRunner(wrap(nodeEndpoint(channel.port1 as never)) as unknown as HostLink);

channel.port1.on('message', (message: unknown) => {
  const m = message as { type?: unknown; callId?: unknown } | null;
  if (m?.type === 'toolshed:cancel' && typeof m.callId === 'string') runner.cancel(m.callId);
});
// The RPC port must not keep an idle worker alive (unref after the last listener: adding one refs it).
channel.port1.unref();

// A nested call from a task running here, to a plugin of this pool: run it beside its caller.
inline.port1.on('message', (message: unknown) => {
  const { id, task } = (message ?? {}) as Partial<InlineRequest>;
  if (typeof id !== 'number' || task?.kind !== 'handler') return;
  void runner.run(task).then((reply) => inline.port1.postMessage({ id, reply }));
});
inline.port1.unref();

/** Piscina task entry: every outcome is a `WorkerReply`, so a rejection always means the worker itself failed. */
export default function run(task: WorkerTask): Promise<WorkerReply> {
  return runner.run(task);
}
