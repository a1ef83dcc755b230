/**
 * The Piscina worker entry of every plugin pool. It imports the plugin module
 * (only ever here, never on the host's thread), extracts manifests, runs
 * checks and handlers, and reaches the host only through the guarded RPC port
 * it hands over at startup.
 */
import { MessageChannel, parentPort } from 'node:worker_threads';
import { taskEnv, withEnv } from './task-env.js';
import { wrap, type Remote } from 'comlink/dist/esm/comlink.mjs';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { codedError, serializeError } from '../../core/errors.js';
import { extractManifest, findCheck, findHandler, pluginObject } from './plugin-object.js';
import { capText, resultText } from './normalize.js';
import { Deadline, DeadlineSweeper } from '../deadlines.js';
import type { CheckTask, CheckVerdict, HandlerOutput, HandlerTask, HostRpc, InlineRequest, RawManifest, WorkerReply, WorkerTask } from '../protocol.js';
import type { ToolContext } from '../../core/plugin.js';

const channel = new MessageChannel();
const inline = new MessageChannel();
// Posted before any task runs; the host exposes its guarded API on the other end, and sends
// nested calls to run here on the inline port.
parentPort?.postMessage({ type: 'toolshed:rpc-port', port: channel.port2, inline: inline.port2 }, [channel.port2, inline.port2]);
const host: Remote<HostRpc> = wrap<HostRpc>(nodeEndpoint(channel.port1 as never));

/** A failed handler's stack is cut to this before it leaves the worker. */
const MAX_STACK_CHARS = 8_000;

const modules = new Map<string, Promise<Record<string, unknown>>>();

/**
 * How one running call stops: its deadline passing or a host cancel aborts
 * ctx.signal and rejects the call. The AbortController is made only when the
 * handler reads ctx.signal; most never do, and creating one per call is a
 * measurable share of a trivial dispatch (see docs/performance.md).
 */
class CallStop {
  private controller: AbortController | undefined;
  rejectDeadline: ((reason: unknown) => void) | undefined;

  constructor(readonly deadline: Deadline) {
    deadline.once('abort', () => {
      this.controller?.abort(deadline.reason);
      this.rejectDeadline?.(deadline.reason);
    });
  }

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.deadline.aborted && !this.controller.signal.aborted) this.controller.abort(this.deadline.reason);
    return this.controller.signal;
  }
}

/**
 * Call deadlines, counted from when the task began here, on one coarse timer
 * per worker (see deadlines.ts); they fire up to 10 ms late. The tier's hard
 * deadline, for code that never yields, comes later: in the thread tier 1 s
 * after this one (plus a cold-start allowance), in the process tier at 1.5×
 * the timeout in the child and 2× in the host.
 */
const deadlines = new DeadlineSweeper(10, (ms) => codedError('TOOL_TIMEOUT', `did not finish within ${ms} ms`));

/** The calls running here, so a host cancel reaches ctx.signal. */
const running = new Map<string, CallStop>();
channel.port1.on('message', (message: unknown) => {
  const m = message as { type?: unknown; callId?: unknown } | null;
  if (m?.type === 'toolshed:cancel' && typeof m.callId === 'string') {
    running.get(m.callId)?.deadline.abort(codedError('TOOL_CANCELLED', 'cancelled by the caller'));
  }
});
// The RPC port must not keep an idle worker alive (unref after the last listener: adding one refs it).
channel.port1.unref();

// A nested call from a task running here, to a plugin of this pool: run it beside its caller.
inline.port1.on('message', (message: unknown) => {
  const { id, task } = (message ?? {}) as Partial<InlineRequest>;
  if (typeof id !== 'number' || task?.kind !== 'handler') return;
  void run(task).then((reply) => inline.port1.postMessage({ id, reply }));
});
inline.port1.unref();

function loadPlugin(entry: string): Promise<Record<string, unknown>> {
  let loaded = modules.get(entry);
  if (!loaded) {
    loaded = import(entry).then(
      (mod: Record<string, unknown>) => {
        try {
          return pluginObject(mod);
        } catch (error) {
          throw codedError('PLUGIN_INVALID', (error as Error).message, { cause: error });
        }
      },
      (error: unknown) => {
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        throw codedError('PLUGIN_IMPORT_FAILED', `importing the plugin failed: ${message}`, { cause: error });
      },
    );
    modules.set(entry, loaded);
  }
  return loaded;
}

function context(task: CheckTask | HandlerTask, stop: CallStop, env: Readonly<Record<string, string>>): ToolContext {
  const { callId } = task;
  const ctx: ToolContext = {
    get signal() {
      return stop.signal;
    },
    env,
    cwd: task.cwd,
    roots: frozenRoots(task),
    options: deepFreeze(task.options ?? {}),
    log: (message) => void host.log(callId, String(message)).catch(() => {}),
    progress: (done, total) => void host.progress(callId, Number(done), total === undefined ? undefined : Number(total)).catch(() => {}),
    callTool: async (name, args = {}) => {
      const outcome = await host.callTool(callId, String(name), args);
      if (!outcome.ok) throw codedError(outcome.code, outcome.message);
      return parseMaybeJson(outcome.text);
    },
    sandboxTools: () => host.sandboxTools(callId),
  };
  if (task.kind === 'handler' && task.sessionId !== undefined) ctx.sessionId = task.sessionId;
  return ctx;
}

function frozenRoots(task: CheckTask | HandlerTask): ToolContext['roots'] {
  return Object.freeze({ read: Object.freeze([...(task.roots?.read ?? [])]), write: Object.freeze([...(task.roots?.write ?? [])]) });
}

/** Freezes a structured-clone copy all the way down, so one call cannot change what the next one sees. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function runManifest(entry: string): Promise<RawManifest> {
  const plugin = await loadPlugin(entry);
  try {
    return extractManifest(plugin);
  } catch (error) {
    throw codedError('PLUGIN_INVALID', (error as Error).message, { cause: error });
  }
}

/**
 * Races `work` against the call's deadline, counted from when the task began
 * here (not from when it was queued, so a cold pool's startup does not eat
 * the budget). The host keeps a hard deadline for code that never yields.
 */
async function withDeadline<T>(callId: string, timeoutMs: number, work: (stop: CallStop) => Promise<T>): Promise<T> {
  const stop = new CallStop(deadlines.start(timeoutMs));
  running.set(callId, stop);
  try {
    return await new Promise<T>((resolve, reject) => {
      stop.rejectDeadline = reject;
      work(stop).then(resolve, reject);
    });
  } finally {
    running.delete(callId);
    deadlines.release(stop.deadline);
  }
}

/** ctx.env: a frozen copy of the task's grant, or of the worker's own env. */
function contextEnv(task: CheckTask | HandlerTask): Readonly<Record<string, string>> {
  return Object.freeze({ ...((task.env ?? process.env) as Record<string, string>) });
}

async function runCheck(task: CheckTask): Promise<CheckVerdict> {
  const check = findCheck(await loadPlugin(task.entry), task.checkId);
  const verdict = await withDeadline(task.callId, task.timeoutMs, async (stop) => check(context(task, stop, contextEnv(task))));
  if (verdict === true) return { ok: true };
  if (verdict === false) return { ok: false, reason: 'check returned false' };
  if (typeof verdict === 'object' && verdict !== null && typeof (verdict as CheckVerdict).ok === 'boolean') {
    const { ok, reason } = verdict as CheckVerdict;
    return ok ? { ok } : { ok, reason: typeof reason === 'string' && reason ? reason : 'check failed' };
  }
  return { ok: false, reason: `check returned ${JSON.stringify(verdict)}; expected true, false or { ok, reason }` };
}

async function runHandler(task: HandlerTask): Promise<HandlerOutput> {
  const handler = findHandler(await loadPlugin(task.entry), task.tool);
  const text = resultText(await withDeadline(task.callId, task.timeoutMs, async (stop) => handler(task.args, context(task, stop, contextEnv(task)))));
  return { text: capText(text, task.maxResultChars), originalLength: text.length };
}

/**
 * Piscina task entry: every outcome is a `WorkerReply`, so a rejection always means the worker
 * itself failed. The task runs with its plugin's env as `process.env` (task-env.ts); a manifest
 * task with the worker's own (empty in the extraction pool).
 */
export default function run(task: WorkerTask): Promise<WorkerReply> {
  return withEnv(taskEnv(task.kind === 'manifest' ? undefined : task.env), () => runTask(task));
}

async function runTask(task: WorkerTask): Promise<WorkerReply> {
  try {
    switch (task.kind) {
      case 'manifest':
        return { ok: true, value: await runManifest(task.entry) };
      case 'check':
        return { ok: true, value: await runCheck(task) };
      case 'handler':
        return { ok: true, value: await runHandler(task) };
    }
  } catch (error) {
    const serialized = serializeError(error);
    // A handler's error message is bounded like its result before it crosses to the host (the stack repeats it).
    if (task.kind === 'handler') {
      serialized.message = capText(serialized.message, task.maxResultChars);
      if (serialized.stack !== undefined) serialized.stack = serialized.stack.slice(0, MAX_STACK_CHARS);
    }
    return { ok: false, error: serialized };
  }
}
