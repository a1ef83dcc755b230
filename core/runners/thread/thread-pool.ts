/**
 * A Piscina pool of worker threads that trusted plugins share (or one plugin
 * alone: it holds env grants, or its entry says `pool: 'own'`), started lazily
 * and shrunk to zero threads when idle. Every task carries its plugin's entry
 * and env grant; the worker switches `process.env` and the module per task
 * (see sandbox/worker/task-env.ts), but modules the plugins share and listeners they
 * leave stay in the worker (why a plugin holding grants gets a pool of its
 * own). Calls wait their turn in the host-side admission queue (admission.ts),
 * so Piscina only ever gets a task when a worker has room: one task per worker,
 * or `tasksPerThread` in the pool of a plugin whose calls wait on child
 * processes (see load/pool-choice.ts). Such a pool is recycled when one of its
 * tasks overruns its hard deadline, ending the other tasks it was running too;
 * the terminal, the one such plugin, stops its command when ctx.signal aborts,
 * well before.
 *
 * Each call has a hard deadline (a swept `Deadline`, see boundary/deadlines.ts) handed
 * to Piscina as its abort signal: Piscina terminates a worker whose running
 * task is aborted, so a stuck handler cannot keep its thread. A nested call
 * (ctx.callTool) to a plugin of this pool runs inline in the caller's worker,
 * which is busy waiting for it: it needs no free worker and cannot deadlock.
 */
import { createRequire } from 'node:module';
import type { Piscina } from 'piscina';
import { MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import { exposeGuarded, type GuardStats } from '../rpc-guard.js';
import { Deadline, DeadlineSweeper, HARD_DEADLINE_SWEEP_MS } from '../../../boundary/deadlines.js';
import type {
  CancelMessage,
  PoolReply,
  NormalizedResult,
  HandlerTask,
  HostRpc,
  InlineAnswer,
  InlineCall,
  InlineDone,
  InlineLog,
  InlineProgress,
  InlineReply,
  InlineRequest,
  WorkerReply,
  WorkerTask,
} from '../../../boundary/protocol.js';
import { HOST_RPC_METHODS } from '../../../boundary/rpc-methods.js';
import { workerReply } from '../../../boundary/pool-reply.js';
import { hostRpc } from '../host-rpc.js';
import { dropMessage, rpcPortOf, type DroppedMessages } from '../../../boundary/worker-messages.js';
import { Admission, type Admitted } from './admission.js';
import { CallTable } from '../../../boundary/call-table.js';
import type { Pins, WorkerPins } from '../../../boundary/pins.js';
import { heapLimits, type CallHooks, type CallOrigin } from '../runner.js';
import type { RunOutcome, RunnerFailure } from '../../../boundary/runner-failure.js';

/** The shape and bounds of one pool. */
interface ThreadPoolOptions {
  memoryMb: number;
  threads: number;
  /**
   * calls one worker runs at once (default 1): more only for a pool whose plugin's calls wait on
   * child processes; its calls then share the worker's heap limit, each keeps its own deadline
   */
  tasksPerThread?: number;
  /** calls that may wait per plugin */
  maxQueue: number;
  /** calls that may wait in all */
  maxQueueTotal: number;
  idleTimeoutMs?: number;
  /** the pins of toolshed's own files its workers import, checked by each worker as it starts (pins.ts) */
  runtime?: Pins;
}

/** One call into the pool. */
interface PoolCall {
  /** the plugin (fairness and its queue bound) */
  key: string;
  session?: string | undefined;
  hooks?: CallHooks | undefined;
  /** the task's own budget (the worker enforces it); waiting in the queue may take as long again */
  timeoutMs: number;
  /** when the worker is terminated, counted from when the task starts */
  hardMs: number;
  signal?: AbortSignal | undefined;
}

const WORKER_URL = new URL('../../../sandbox/worker/worker-entry.js', import.meta.url).href;

/** Extra hard-deadline time when the call has to wait for a worker to start. */
const COLD_START_ALLOWANCE_MS = 2_000;

/** Time a worker gets to stop cooperatively (ctx.signal aborted) before it is terminated. */
export const SOFT_TO_HARD_GRACE_MS = 1_000;

/** One worker as the host sees it: its guarded RPC port and its inline port. */
interface WorkerLink {
  port: MessagePort;
  inline: MessagePort | undefined;
  pending: Map<number, (reply: WorkerReply<NormalizedResult>) => void>;
  /** the host API its messages reach */
  api: HostRpc;
  /**
   * nested calls handed back to this worker and not reported yet, by inline id: their caller's call id and whole
   * dispatch
   */
  handed: Map<number, { caller: string; dispatched: Promise<unknown> }>;
}

let nextInlineId = 1;

/**
 * Piscina, loaded the first time a pool starts: a host that has not run a handler yet (a CLI
 * listing tools, a start with every manifest cached) does not pay for its modules.
 */
let piscina: typeof Piscina | undefined;
function piscinaClass(): typeof Piscina {
  return (piscina ??= (createRequire(import.meta.url)('piscina') as typeof import('piscina')).Piscina);
}

/** A lazily started pool of worker threads with fair, bounded admission. */
export class ThreadPool {
  private pool: Piscina | undefined;
  private readonly admission: Admission;
  // Hard deadlines are backstops: swept on one timer rather than timed one by one.
  private readonly deadlines = new DeadlineSweeper(HARD_DEADLINE_SWEEP_MS);
  private readonly calls = new CallTable<CallHooks>();
  /** hard deadlines of running calls by call id, so an overrunning inline call can stop its worker */
  private readonly hard = new CallTable<Deadline>();
  private readonly links = new Set<WorkerLink>();
  /** dispatches of reported handed-off calls, by their caller's call id (see nestedDone) */
  private readonly finishing = new Map<string, Set<Promise<unknown>>>();
  readonly guard: GuardStats = { passed: 0, refused: 0 };
  /** malformed messages from its workers, dropped */
  readonly dropped: DroppedMessages = { count: 0 };
  private running = 0;
  private closed = false;
  /** the pins of the plugins that run here, by entry URL: every worker gets them as its workerData */
  private readonly pinned: Record<string, Pins> = {};

  constructor(private readonly options: ThreadPoolOptions) {
    this.admission = new Admission({
      slots: this.capacity,
      maxQueue: options.maxQueue,
      maxQueueTotal: options.maxQueueTotal,
    });
  }

  /** Live numbers: threads started, calls running (inline ones included) and waiting. */
  stats(): { started: boolean; threads: number; running: number; waiting: number } {
    return {
      started: this.pool !== undefined,
      threads: this.pool?.threads.length ?? 0,
      running: this.running,
      waiting: this.admission.load.waiting,
    };
  }

  /** Calls of plugin `key` waiting for a worker. */
  waitingFor(key: string): number {
    return this.admission.waitingFor(key);
  }

  /** Most calls that run at once. */
  get capacity(): number {
    return this.options.threads * (this.options.tasksPerThread ?? 1);
  }

  /**
   * Pins a plugin that runs here: each worker checks them before it first imports the plugin.
   * Plugins are pinned as they load, before the pool's first call starts it (workerData is
   * fixed once it has); a plugin pinned later would go unchecked, so that is refused.
   */
  pin(entry: string, pins: Pins): void {
    if (this.pool) throw new Error(`the pool already started; ${entry} cannot be pinned in it`);
    this.pinned[entry] = pins;
  }

  private start(): Piscina | undefined {
    if (this.closed) return undefined;
    if (this.pool) return this.pool;
    const { memoryMb, threads, idleTimeoutMs = 30_000, tasksPerThread = 1 } = this.options;
    const pool = new (piscinaClass())({
      filename: WORKER_URL,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: idleTimeoutMs,
      concurrentTasksPerWorker: tasksPerThread,
      // An idle worker blocks in Atomics.wait by default, which would stall the tasks it still runs.
      ...(tasksPerThread > 1 ? { atomics: 'async' as const } : {}),
      // Empty: every task carries its own plugin's grant.
      env: {},
      resourceLimits: heapLimits(memoryMb),
      workerData: {
        ...(this.options.runtime ? { runtime: this.options.runtime } : {}),
        plugins: this.pinned,
      } satisfies WorkerPins,
    });
    pool.on('message', (message: unknown) => this.onWorkerMessage(message));
    // A worker that dies between tasks is replaced on demand; nothing to report.
    pool.on('error', () => {});
    this.pool = pool;
    return pool;
  }

  private onWorkerMessage(message: unknown): void {
    const port = rpcPortOf(message);
    if (typeof port === 'string') return dropMessage(this.dropped, port);
    const { inline } = message as { inline?: unknown };
    const link = {
      port,
      inline: inline instanceof MessagePort ? inline : undefined,
      pending: new Map(),
      handed: new Map(),
    } as Omit<WorkerLink, 'api'> as WorkerLink;
    link.api = hostRpc(this.calls, Infinity, link, (caller, id, dispatched) =>
      link.handed.set(id, { caller, dispatched }),
    );
    exposeGuarded(link.api, port, HOST_RPC_METHODS, this.guard);
    port.unref();
    this.links.add(link);
    port.once('close', () => this.forget(link));
    if (link.inline) {
      link.inline.on('message', (data: unknown) => this.onInlineMessage(link, data));
      link.inline.unref();
    }
  }

  private forget(link: WorkerLink): void {
    this.links.delete(link);
    link.inline?.close();
    link.handed.clear();
    const crashed: WorkerReply<NormalizedResult> = {
      ok: false,
      error: { name: 'Error', code: 'TOOL_CRASHED', message: 'the worker running the calling tool stopped' },
    };
    for (const resolve of link.pending.values()) resolve(crashed);
    link.pending.clear();
  }

  /**
   * What a worker sends on its inline port: a nested call (InlineCall, the RPC's callTool on a
   * lighter channel, every field coerced as there), replies of handed-off calls (InlineDone, or
   * riding on a call), or the reply to an inline request. Anything else is dropped and counted.
   */
  private onInlineMessage(link: WorkerLink, data: unknown): void {
    const { api } = link;
    const m = (data ?? {}) as Partial<InlineCall> & Partial<InlineDone> & Partial<InlineLog> & Partial<InlineProgress>;
    if (m.type === 'toolshed:log') return api.log(String(m.callId), String(m.message), m.level);
    if (m.type === 'toolshed:progress')
      return api.progress(
        String(m.callId),
        Number(m.done),
        m.total === undefined || m.total === null ? undefined : Number(m.total),
      );
    if (m.type !== 'toolshed:call' && m.type !== 'toolshed:done') return this.onInlineReply(link, data);
    if (Array.isArray(m.done)) for (const reply of m.done) this.onInlineReply(link, reply);
    else if (m.done !== undefined)
      dropMessage(this.dropped, `an inline ${m.type} message whose done is ${typeof m.done}, not an array`);
    if (m.type !== 'toolshed:call') return;
    if (typeof m.id !== 'number')
      return dropMessage(this.dropped, `an inline call whose id is ${typeof m.id}, not a number`);
    const id = m.id;
    void api
      .callTool(String(m.callId), String(m.name), m.args)
      .then((answer) => link.inline?.postMessage({ type: 'toolshed:answer', id, answer } satisfies InlineAnswer));
  }

  private onInlineReply(link: WorkerLink, data: unknown): void {
    const { id, reply } = (data ?? {}) as Partial<InlineReply>;
    if (typeof id !== 'number' || typeof reply !== 'object' || reply === null)
      return dropMessage(
        this.dropped,
        `a ${data === null ? 'null' : typeof data} on the inline port that is no message it takes`,
      );
    // A well-formed reply to an id nobody is waiting for (a guess) is ignored below, as on the RPC port.
    const resolve = link.pending.get(id);
    link.pending.delete(id);
    resolve?.(reply);
    const handed = link.handed.get(id);
    if (!handed) return;
    link.handed.delete(id);
    // Reported: its dispatch only maps and books the reply now. The caller's own reply waits for it.
    let open = this.finishing.get(handed.caller);
    if (!open) this.finishing.set(handed.caller, (open = new Set()));
    open.add(handed.dispatched);
    const forget = () => {
      open.delete(handed.dispatched);
      if (!open.size && this.finishing.get(handed.caller) === open) this.finishing.delete(handed.caller);
    };
    handed.dispatched.then(forget, forget);
  }

  /**
   * Waits until every nested call that `callId` handed back to its worker and that the worker
   * reported has finished its dispatch, so a call returns after the calls it made (as when their
   * outcomes came back through the host). Reports still queued on an inline port, sent before
   * this call's own reply on another port, are read first: so are its ctx.log and ctx.progress,
   * which must reach the caller before its result does (an MCP client drops a log notification
   * that comes after the response). An empty port costs one synchronous read.
   */
  private nestedDone(callId: string): Promise<unknown> | undefined {
    for (const link of this.links) {
      if (!link.inline) continue;
      for (let m = receiveMessageOnPort(link.inline); m; m = receiveMessageOnPort(link.inline))
        this.onInlineMessage(link, m.message);
    }
    const open = this.finishing.get(callId);
    return open?.size ? Promise.all(open) : undefined;
  }

  /** Runs `task` when a worker is free (or fails: queue-full, timeout while waiting, cancelled, closed). */
  run<T>(task: WorkerTask, call: PoolCall): Promise<RunOutcome<T>> {
    if (this.closed) return Promise.resolve({ ok: false, failure: { kind: 'closed' } });
    const admitted = this.admission.acquire({
      key: call.key,
      session: call.session ?? '',
      waitMs: call.timeoutMs,
      signal: call.signal,
    });
    // A free worker is granted at once: no turn of the event loop spent waiting for a value already there.
    return admitted instanceof Promise
      ? admitted.then((granted) => this.runAdmitted<T>(task, call, granted))
      : this.runAdmitted<T>(task, call, admitted);
  }

  private async runAdmitted<T>(task: WorkerTask, call: PoolCall, admitted: Admitted): Promise<RunOutcome<T>> {
    if (!admitted.ok) return admitted;
    const pool = this.start();
    if (!pool) {
      admitted.release();
      return { ok: false, failure: { kind: 'closed' } };
    }
    // The worker enforces timeoutMs from the moment the task starts and aborts ctx.signal, so
    // cooperative code cleans up. This hard deadline, a little later, catches code that never
    // yields; it allows for a cold start when no worker is idle.
    // (Started workers are counted by their links: Piscina's `threads` builds a list per read.)
    const allowance = this.links.size * (this.options.tasksPerThread ?? 1) > this.running ? 0 : COLD_START_ALLOWANCE_MS;
    const timeout = this.deadlines.start(call.hardMs + allowance);
    const callId = 'callId' in task ? task.callId : '';
    const hard = call.signal ? this.cancellable(timeout, call.signal, callId) : timeout;
    if (call.hooks) this.calls.set(callId, call.hooks);
    this.hard.set(callId, hard);
    this.running++;
    try {
      const running = this.shares ? this.orRecycle(pool, pool.run(task), hard) : pool.run(task, { signal: hard });
      const reply = workerReply<T>((await running) as PoolReply);
      const nested = this.nestedDone(callId);
      if (nested) await nested;
      return reply;
    } catch (error) {
      // close() destroys the pool under running calls: that is the host closing, not the plugin crashing.
      if (this.closed) return { ok: false, failure: { kind: 'closed' } };
      return { ok: false, failure: classify(error, timeout, call.signal, call.timeoutMs, this.options.memoryMb) };
    } finally {
      this.deadlines.release(timeout);
      hard.dispose();
      this.running--;
      this.hard.delete(callId);
      if (call.hooks) this.calls.delete(callId);
      admitted.release();
    }
  }

  /** Whether its workers run several tasks at once (`tasksPerThread`). */
  private get shares(): boolean {
    return (this.options.tasksPerThread ?? 1) > 1;
  }

  /**
   * `running`, a task on a worker that runs several: Piscina runs a task it may abort on a
   * worker of its own, so such tasks are not given the hard deadline. Past it, the whole pool is
   * recycled instead (the next call starts a fresh one): the stuck task's worker stops, and so
   * do the other tasks its workers were running.
   */
  private orRecycle(pool: Piscina, running: Promise<unknown>, hard: Deadline): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const onHard = () => {
        if (this.pool === pool) this.pool = undefined;
        void pool.destroy();
        reject(hard.reason);
      };
      hard.addEventListener('abort', onHard);
      running.then(resolve, reject).finally(() => hard.removeEventListener('abort', onHard));
    });
  }

  /** Whether a nested call made by `origin` can run inline in its worker here. */
  holds(origin: CallOrigin | undefined): origin is CallOrigin & { via: WorkerLink } {
    return (
      origin !== undefined &&
      this.links.has(origin.via as WorkerLink) &&
      (origin.via as WorkerLink).inline !== undefined
    );
  }

  /**
   * Runs a nested handler task in the worker of the running call that made it. It takes no
   * slot (its caller holds one and is waiting for it). Past its hard deadline the caller's
   * worker is stopped, which ends both.
   */
  async runInline(
    origin: CallOrigin & { via: object },
    task: HandlerTask,
    call: PoolCall,
  ): Promise<RunOutcome<NormalizedResult>> {
    const link = origin.via as WorkerLink;
    if (this.closed) return { ok: false, failure: { kind: 'closed' } };
    if (!link.inline || !this.links.has(link))
      return {
        ok: false,
        failure: { kind: 'crashed', outOfMemory: false, message: 'the worker running the calling tool stopped' },
      };
    const id = nextInlineId++;
    const timeout = this.deadlines.start(call.hardMs);
    if (call.hooks) this.calls.set(task.callId, call.hooks);
    this.running++;
    let onCancel: (() => void) | undefined;
    try {
      const reply = new Promise<RunOutcome<NormalizedResult> | 'timeout' | 'cancelled'>((resolve) => {
        link.pending.set(id, resolve);
        timeout.once('abort', () => resolve('timeout'));
        if (call.signal) {
          onCancel = () => {
            link.port.postMessage({ type: 'toolshed:cancel', callId: task.callId } satisfies CancelMessage);
            resolve('cancelled');
          };
          if (call.signal.aborted) onCancel();
          else call.signal.addEventListener('abort', onCancel, { once: true });
        }
      });
      // With no hook after the run, the task goes back as the answer to the caller's callTool
      // (it runs there and replies on the inline port all the same); otherwise on the inline port.
      if (origin.handOff) origin.handOff({ id, task });
      else link.inline.postMessage({ id, task } satisfies InlineRequest);
      const outcome = await reply;
      const nested = this.nestedDone(task.callId);
      if (nested) await nested;
      if (outcome === 'cancelled') return { ok: false, failure: { kind: 'cancelled' } };
      if (outcome === 'timeout') {
        // The worker is stuck in this call: stop it (its own call fails too).
        this.hard
          .get(origin.callId)
          ?.abort(new DOMException(`a nested call overran ${call.hardMs} ms`, 'TimeoutError'));
        return { ok: false, failure: { kind: 'timeout', timeoutMs: call.timeoutMs } };
      }
      return outcome;
    } finally {
      link.pending.delete(id);
      this.deadlines.release(timeout);
      if (onCancel) call.signal?.removeEventListener('abort', onCancel);
      this.running--;
      if (call.hooks) this.calls.delete(task.callId);
    }
  }

  /**
   * A caller's cancel first asks the worker to abort the call's ctx.signal
   * (broadcast on the RPC ports: the host does not know which worker runs it),
   * and terminates the worker only if the call is still running after a grace.
   */
  private cancellable(timeout: Deadline, signal: AbortSignal, callId: string): Deadline {
    const hard = new Deadline();
    const onTimeout = () => hard.abort(timeout.reason);
    const onCancel = () => {
      for (const link of this.links) link.port.postMessage({ type: 'toolshed:cancel', callId } satisfies CancelMessage);
      hard.abortAfter(SOFT_TO_HARD_GRACE_MS, signal.reason);
    };
    timeout.once('abort', onTimeout);
    if (signal.aborted) hard.abort(signal.reason);
    else signal.addEventListener('abort', onCancel, { once: true });
    hard.onDispose(() => {
      timeout.off('abort', onTimeout);
      signal.removeEventListener('abort', onCancel);
    });
    return hard;
  }

  /** Stops every worker; waiting calls fail with `closed`. */
  async close(): Promise<void> {
    this.closed = true;
    this.admission.close({ kind: 'closed' });
    const pool = this.pool;
    this.pool = undefined;
    for (const link of this.links) {
      link.port.close();
      this.forget(link);
    }
    this.links.clear();
    this.deadlines.stop();
    if (pool) await pool.destroy();
  }
}

function classify(
  error: unknown,
  timeout: Deadline,
  signal: AbortSignal | undefined,
  timeoutMs: number,
  memoryMb: number,
): RunnerFailure {
  if (timeout.aborted) return { kind: 'timeout', timeoutMs };
  if (signal?.aborted) return { kind: 'cancelled' };
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return { kind: 'crashed', outOfMemory: true, message: `the worker ran out of memory (limit ${memoryMb} MB)` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'crashed', outOfMemory: false, message: `the worker died: ${message}` };
}
