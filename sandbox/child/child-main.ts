/**
 * The entry of a process-tier child. It runs under Node's permission model
 * (and, where available, its own namespaces), hardens its own realm before
 * any plugin code loads (harden.ts, imported first: ESM evaluates imports in
 * order), talks to the host only through framed messages (host to child on
 * stdin, child to host on fd 3: see boundary/channel.ts for why), and runs the
 * plugin's tasks on its main thread: the process is the isolation boundary,
 * so a second hop into a thread pool would only add latency and a V8 isolate.
 * Host RPC (log, progress, callTool, sandboxTools) goes to the host over
 * Comlink inside those frames. The host treats everything this process sends
 * as hostile (plugin code shares this realm and can write to fd 3); the caps
 * here keep honest replies within the host's limits, they are not what
 * protects the host.
 */
import './harden.js';
import { wrap } from 'comlink/dist/esm/comlink.mjs';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { FrameChannel, RpcPort } from '../../boundary/channel.js';
import { FdWriter } from './fd-writer.js';
import { capText } from '../../boundary/normalize.js';
import { createTaskRunner, type HostLink } from '../worker/task-runner.js';
import { DeadlineSweeper, HARD_DEADLINE_SWEEP_MS } from '../../boundary/deadlines.js';
import type {
  ChildInit,
  ChildReadyFrame,
  ChildReply,
  ChildReplyFrame,
  ChildTaskFrame,
  HostToChild,
  RpcFrame,
  WorkerReply,
} from '../../boundary/protocol.js';

/** The host reads the child's frames from its fd 3 (stdio[3]); its own come in on stdin. */
const CHANNEL_FD = 3;
/** Frames from the host are trusted; the cap only stops a runaway. */
const MAX_HOST_FRAME_BYTES = 256 * 1024 * 1024;
/** Error messages and stacks are cut to this before crossing to the host. */
const MAX_ERROR_CHARS = 8_000;

// The host closing its pipes (close(), or the host dying) ends the child.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
const output = new FdWriter(CHANNEL_FD, () => process.exit(0));

let init: ChildInit | undefined;
/** Call ids of the running checks and handlers, by task id, so a cancel frame reaches ctx.signal. */
const running = new Map<string, string>();
/** A manifest task has no deadline of its own: the child stops waiting for it at abortAfterMs. */
const manifestDeadlines = new DeadlineSweeper(HARD_DEADLINE_SWEEP_MS);

const channel = new FrameChannel(process.stdin, output, MAX_HOST_FRAME_BYTES, onFrame, () => process.exit(70));
const rpcPort = new RpcPort((data) => channel.send({ type: 'rpc', data } satisfies RpcFrame));
// No pins (boundary/pins.ts) here: code pinning is for trusted plugins, whose code runs in the
// host's own threads; an untrusted plugin's child is sandboxed and it is trusted for nothing.
const runner = createTaskRunner(wrap(nodeEndpoint(rpcPort)) as unknown as HostLink);

function onFrame(message: unknown): void {
  const frame = message as HostToChild;
  switch (frame.type) {
    case 'init':
      start(frame);
      break;
    case 'task':
      void runTask(frame);
      break;
    case 'cancel': {
      const callId = running.get(frame.id);
      if (callId !== undefined) runner.cancel(callId);
      break;
    }
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
  channel.send({ type: 'ready', pid: process.pid } satisfies ChildReadyFrame);
  // Import the plugin while the host sends the first task; that task waits for the same import.
  void runner.run({ kind: 'manifest', entry: frame.entry });
}

async function runTask(frame: ChildTaskFrame): Promise<void> {
  const { task } = frame;
  let reply: ChildReply;
  if (task.kind === 'manifest') {
    reply = await manifestWithin(frame.abortAfterMs, runner.run(task));
  } else {
    running.set(frame.id, task.callId);
    try {
      reply = bounded(frame, await runner.run(task));
    } finally {
      running.delete(frame.id);
    }
  }
  channel.send({ type: 'reply', id: frame.id, reply } satisfies ChildReplyFrame);
}

/**
 * A manifest reply, or a timeout once `ms` have passed (an import that never settles); the host kills the child soon
 * after.
 */
async function manifestWithin(ms: number, work: Promise<WorkerReply>): Promise<ChildReply> {
  const deadline = manifestDeadlines.start(ms);
  try {
    const timedOut = new Promise<ChildReply>((resolve) =>
      deadline.once('abort', () => resolve({ ok: false, failure: { kind: 'timeout', timeoutMs: ms } })),
    );
    const reply = await Promise.race([work, timedOut]);
    if (!reply.ok || 'failure' in reply) return reply;
    const size = Buffer.byteLength(JSON.stringify(reply));
    if (init && size > init.maxFrameBytes - 1_024) {
      return {
        ok: false,
        error: {
          name: 'Error',
          code: 'PLUGIN_INVALID',
          message: `the manifest reply is ${size} bytes, over the process tier's limit of ${init.maxFrameBytes}`,
        },
      };
    }
    return reply;
  } finally {
    manifestDeadlines.release(deadline);
  }
}

/** Caps a check's or handler's reply to what the host accepts. */
function bounded(frame: ChildTaskFrame, reply: WorkerReply): ChildReply {
  if (!reply.ok) {
    const { name, code, message, stack } = reply.error;
    // capText, not slice: a message cut here still says so (RESULT_TRUNCATED).
    const error = {
      name: String(name).slice(0, 200),
      message: capText(String(message), MAX_ERROR_CHARS),
      ...(typeof code === 'string' ? { code: code.slice(0, 100) } : {}),
    };
    return {
      ok: false,
      error: typeof stack === 'string' ? { ...error, stack: stack.slice(0, MAX_ERROR_CHARS) } : error,
    };
  }
  if (frame.task.kind === 'handler') {
    const value = reply.value as { text?: unknown; originalLength?: unknown };
    const text = typeof value?.text === 'string' ? value.text : String(value?.text);
    const originalLength = typeof value?.originalLength === 'number' ? value.originalLength : text.length;
    return {
      ok: true,
      value: { text: capText(text, frame.task.maxResultChars, Math.max(originalLength, text.length)), originalLength },
    };
  }
  return reply;
}
