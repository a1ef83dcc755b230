/**
 * The entry of a process-tier child. It runs under Node's permission model
 * (and, where available, its own namespaces), talks to the host only through
 * framed messages on fd 3, runs tasks in its own Piscina pool whose workers
 * are hardened before any plugin code loads, and relays the workers' host
 * RPC (log, progress, callTool, sandboxTools) to the host over Comlink. The host treats
 * everything this process sends as hostile; the caps here keep honest
 * replies within the host's limits, they are not what protects the host.
 */
import net from 'node:net';
import { Piscina } from 'piscina';
import { wrap, type Remote } from 'comlink/dist/esm/comlink.mjs';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { exposeGuarded } from '../../rpc-guard.js';
import { rpcPortOf } from '../../worker-messages.js';
import { FrameChannel, RpcPort } from '../channel.js';
import { capText } from '../../worker/normalize.js';
import { Deadline, DeadlineSweeper, HARD_DEADLINE_SWEEP_MS } from '../../deadlines.js';
import { heapLimits } from '../../runner.js';
import { HOST_RPC_METHODS, type ChildFailure, type ChildInit, type ChildReply, type ChildTaskFrame, type HostRpc, type HostToChild, type WorkerReply } from '../../protocol.js';

/** The host passes the channel as the child's fd 3 (stdio[3]). */
const CHANNEL_FD = 3;
/** Frames from the host are trusted; the cap only stops a runaway. */
const MAX_HOST_FRAME_BYTES = 256 * 1024 * 1024;
/** Error messages and stacks are cut to this before crossing to the host. */
const MAX_ERROR_CHARS = 8_000;

const socket = new net.Socket({ fd: CHANNEL_FD, readable: true, writable: true });
// The host closing the pipe (close(), or the host dying) ends the child.
socket.on('close', () => process.exit(0));

let init: ChildInit | undefined;
let pool: Piscina | undefined;
const running = new Map<string, Deadline>();
/** Per-task deadlines on one coarse timer (see deadlines.ts). */
const deadlines = new DeadlineSweeper(HARD_DEADLINE_SWEEP_MS);
const CANCELLED = 'cancelled';

const channel = new FrameChannel(socket, MAX_HOST_FRAME_BYTES, onFrame, () => process.exit(70));
const rpcPort = new RpcPort((data) => channel.send({ type: 'rpc', data }));
const host: Remote<HostRpc> = wrap<HostRpc>(nodeEndpoint(rpcPort));

/** What the workers may call; each method forwards to the host, which checks it again. */
const relay: HostRpc = {
  log: (callId, message) => void host.log(callId, String(message)).catch(() => {}),
  progress: (callId, done, total) => void host.progress(callId, done, total).catch(() => {}),
  callTool: (callId, name, args) => host.callTool(callId, name, args),
  sandboxTools: (callId) => host.sandboxTools(callId),
};

function onFrame(message: unknown): void {
  const frame = message as HostToChild;
  switch (frame.type) {
    case 'init':
      start(frame);
      break;
    case 'task':
      void runTask(frame);
      break;
    case 'cancel':
      running.get(frame.id)?.abort(CANCELLED);
      break;
    case 'rpc':
      rpcPort.deliver(frame.data);
      break;
  }
}

function start(frame: ChildInit): void {
  if (init) return;
  init = frame;
  // The process was spawned with an empty environment; grants arrive here so
  // that no granted name (NODE_OPTIONS, LD_PRELOAD…) can shape Node's startup.
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, frame.env);
  pool = new Piscina({
    filename: frame.workerUrl,
    minThreads: 1,
    maxThreads: frame.threads,
    concurrentTasksPerWorker: 1,
    env: frame.env,
    resourceLimits: heapLimits(frame.memoryMb),
  });
  pool.on('message', onWorkerMessage);
  // A worker that dies between tasks is replaced on demand; a running task's death is reported by its run().
  pool.on('error', () => {});
  // Warm one worker (plugin imported) while the host sends the first task.
  pool.run({ kind: 'manifest', entry: frame.entry }).catch(() => {});
  channel.send({ type: 'ready', pid: process.pid });
}

function onWorkerMessage(message: unknown): void {
  const port = rpcPortOf(message);
  // Dropped here, counted by the host (which reports it in explain).
  if (typeof port === 'string') return void channel.send({ type: 'dropped', reason: port });
  // Guarded here too, so a worker cannot reach the relay's internals; the host's guard is the one that counts.
  exposeGuarded(relay, port, HOST_RPC_METHODS);
  port.unref();
}

async function runTask(frame: ChildTaskFrame): Promise<void> {
  const deadline = deadlines.start(frame.abortAfterMs);
  running.set(frame.id, deadline);
  let reply: ChildReply;
  try {
    if (!pool) throw new Error('the child received a task before its init');
    reply = bounded(frame, (await pool.run(frame.task, { signal: deadline })) as WorkerReply);
  } catch (error) {
    // A cancel aborts with a reason of 'cancelled'; the sweeper's reason is a TimeoutError.
    reply = { ok: false, failure: failureOf(error, deadline.aborted && deadline.reason !== CANCELLED, frame.abortAfterMs) };
  } finally {
    deadlines.release(deadline);
    running.delete(frame.id);
  }
  channel.send({ type: 'reply', id: frame.id, reply });
}

function failureOf(error: unknown, overran: boolean, abortAfterMs: number): ChildFailure {
  if (overran) return { kind: 'timeout', timeoutMs: abortAfterMs };
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') return { kind: 'crashed', outOfMemory: true, message: `the worker ran out of memory (limit ${init?.memoryMb} MB)` };
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'crashed', outOfMemory: false, message: `the worker died: ${message.slice(0, MAX_ERROR_CHARS)}` };
}

/** Caps a worker's reply with this realm's own functions (plugin code may have patched the worker's). */
function bounded(frame: ChildTaskFrame, reply: WorkerReply): ChildReply {
  if (!reply.ok) {
    const { name, code, message, stack } = reply.error;
    // capText, not slice: a message cut here still says so (RESULT_TRUNCATED).
    const error = { name: String(name).slice(0, 200), message: capText(String(message), MAX_ERROR_CHARS), ...(typeof code === 'string' ? { code: code.slice(0, 100) } : {}) };
    return { ok: false, error: typeof stack === 'string' ? { ...error, stack: stack.slice(0, MAX_ERROR_CHARS) } : error };
  }
  if (frame.task.kind === 'handler') {
    const value = reply.value as { text?: unknown; originalLength?: unknown };
    const text = typeof value?.text === 'string' ? value.text : String(value?.text);
    const originalLength = typeof value?.originalLength === 'number' ? value.originalLength : text.length;
    return { ok: true, value: { text: capText(text, frame.task.maxResultChars, Math.max(originalLength, text.length)), originalLength } };
  }
  const size = Buffer.byteLength(JSON.stringify(reply));
  if (init && size > init.maxFrameBytes - 1_024) {
    return { ok: false, error: { name: 'Error', code: 'PLUGIN_INVALID', message: `the ${frame.task.kind} reply is ${size} bytes, over the process tier's limit of ${init.maxFrameBytes}` } };
  }
  return reply;
}
