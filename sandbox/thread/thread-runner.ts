/**
 * The thread tier: one Piscina pool per plugin, started on the first call or
 * check and shrunk to zero threads when idle. Handlers run with
 * `concurrentTasksPerWorker: 1`, a heap limit from `limits.memoryMb` and an
 * env reduced to the plugin's grants. Each call has a hard deadline (a
 * swept `Deadline`, see deadlines.ts) handed to Piscina as its abort signal:
 * Piscina terminates a worker whose running task is aborted, so a stuck
 * handler cannot keep its thread.
 */
import { Piscina } from 'piscina';
import type { MessagePort } from 'node:worker_threads';
import { exposeGuarded, type GuardStats } from '../rpc-guard.js';
import { dropMessage, rpcPortOf, type DroppedMessages } from '../worker-messages.js';
import { Deadline, DeadlineSweeper, HARD_DEADLINE_SWEEP_MS } from '../deadlines.js';
import { HOST_RPC_METHODS, type CheckVerdict, type HandlerOutput, type RawManifest, type WorkerReply, type WorkerTask } from '../protocol.js';
import { checkTask, handlerTask } from '../tasks.js';
import { hostRpc } from '../host-rpc.js';
import { heapLimits, type CallHooks, type CheckRequest, type HandlerRequest, type ManifestExtractor, type RunOutcome, type Runner, type RunnerFailure, type RunnerStats } from '../runner.js';

/** Options of one plugin's thread pool. */
export interface ThreadRunnerOptions {
  /** file URL of the plugin's entry module */
  entry: string;
  /** the host's working directory, passed to handlers as ctx.cwd */
  cwd: string;
  /** the complete environment of the plugin's workers */
  env: Record<string, string>;
  memoryMb: number;
  threads: number;
  maxQueue: number;
  idleTimeoutMs?: number;
}

const WORKER_URL = new URL('../worker/worker-entry.js', import.meta.url).href;

/** Extra hard-deadline time when the call has to wait for a worker to start. */
const COLD_START_ALLOWANCE_MS = 2_000;

/** Time a worker gets to stop cooperatively (ctx.signal aborted) before it is terminated. */
const SOFT_TO_HARD_GRACE_MS = 1_000;

/** Runs a plugin's code in a lazily started Piscina pool. */
export class ThreadRunner implements Runner, ManifestExtractor {
  readonly tier = 'thread' as const;
  private pool: Piscina | undefined;
  // Hard deadlines are backstops: swept on one timer rather than timed one by one.
  private readonly deadlines = new DeadlineSweeper(HARD_DEADLINE_SWEEP_MS);
  private readonly calls = new Map<string, CallHooks>();
  private readonly ports = new Set<MessagePort>();
  private readonly guard: GuardStats = { passed: 0, refused: 0 };
  private readonly dropped: DroppedMessages = { count: 0 };
  private inFlight = 0;
  private completed = 0;
  private closed = false;

  constructor(private readonly options: ThreadRunnerOptions) {}

  private start(): Piscina | undefined {
    if (this.closed) return undefined;
    if (this.pool) return this.pool;
    const { env, memoryMb, threads, idleTimeoutMs = 30_000 } = this.options;
    const pool = new Piscina({
      filename: WORKER_URL,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: idleTimeoutMs,
      concurrentTasksPerWorker: 1,
      env,
      resourceLimits: heapLimits(memoryMb),
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
    exposeGuarded(hostRpc(this.calls), port, HOST_RPC_METHODS, this.guard);
    port.unref();
    this.ports.add(port);
    port.once('close', () => this.ports.delete(port));
  }

  /**
   * `hardMs` is the deadline after which the worker is terminated, when it differs from
   * the default (the worker's own soft deadline plus a grace).
   */
  private async run<T>(task: WorkerTask, hooks: CallHooks | undefined, timeoutMs: number, signal?: AbortSignal, hardMs = timeoutMs + SOFT_TO_HARD_GRACE_MS): Promise<RunOutcome<T>> {
    const pool = this.start();
    if (!pool) return { ok: false, failure: { kind: 'closed' } };
    if (this.inFlight >= this.options.threads + this.options.maxQueue) {
      return { ok: false, failure: { kind: 'queue-full', limit: this.options.maxQueue } };
    }
    // The worker enforces timeoutMs from the moment the task starts and aborts
    // ctx.signal, so cooperative code cleans up (kills its child processes).
    // This hard deadline, a little later, catches code that never yields; it
    // allows for a cold start when no worker is idle.
    const idle = pool.threads.length - this.inFlight;
    const allowance = idle > 0 ? 0 : COLD_START_ALLOWANCE_MS;
    const timeout = this.deadlines.start(hardMs + allowance);
    const callId = 'callId' in task ? task.callId : '';
    const hard = signal ? this.cancellable(timeout, signal, callId) : timeout;
    if (hooks) this.calls.set(callId, hooks);
    this.inFlight++;
    try {
      return (await pool.run(task, { signal: hard })) as WorkerReply<T>;
    } catch (error) {
      // close() destroys the pool under running calls: that is the host closing, not the plugin crashing.
      if (this.closed) return { ok: false, failure: { kind: 'closed' } };
      return { ok: false, failure: classify(error, timeout, signal, timeoutMs, this.options.memoryMb) };
    } finally {
      this.deadlines.release(timeout);
      hard.dispose();
      this.inFlight--;
      this.completed++;
      if (hooks) this.calls.delete(callId);
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
      for (const port of this.ports) port.postMessage({ type: 'toolshed:cancel', callId });
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

  /**
   * Extracts the manifest of the plugin at `entry` (this runner may serve as the shared
   * extraction pool). A manifest task has no soft deadline in the worker: `timeoutMs` is the
   * hard one, and a module that never finishes importing loses its worker.
   */
  extract(entry: string, timeoutMs: number): Promise<RunOutcome<RawManifest>> {
    return this.run<RawManifest>({ kind: 'manifest', entry }, undefined, timeoutMs, undefined, timeoutMs);
  }

  check(request: CheckRequest, hooks: CallHooks): Promise<RunOutcome<CheckVerdict>> {
    return this.run<CheckVerdict>(checkTask(this.options.entry, this.options.cwd, request), hooks, request.timeoutMs);
  }

  handle(request: HandlerRequest, hooks: CallHooks, signal?: AbortSignal): Promise<RunOutcome<HandlerOutput>> {
    return this.run<HandlerOutput>(handlerTask(this.options.entry, this.options.cwd, request), hooks, request.timeoutMs, signal);
  }

  /** Threads share the host's process: no OS-level protections of their own. */
  protections(): undefined {
    return undefined;
  }

  stats(): RunnerStats {
    return {
      started: this.pool !== undefined,
      threads: this.pool?.threads.length ?? 0,
      inFlight: this.inFlight,
      capacity: this.options.threads,
      completed: this.completed,
      guard: { ...this.guard },
      dropped: { ...this.dropped },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = undefined;
    for (const port of this.ports) port.close();
    this.ports.clear();
    this.deadlines.stop();
    if (pool) await pool.destroy();
  }
}

function classify(error: unknown, timeout: Deadline, signal: AbortSignal | undefined, timeoutMs: number, memoryMb: number): RunnerFailure {
  if (timeout.aborted) return { kind: 'timeout', timeoutMs };
  if (signal?.aborted) return { kind: 'cancelled' };
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return { kind: 'crashed', outOfMemory: true, message: `the worker ran out of memory (limit ${memoryMb} MB)` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'crashed', outOfMemory: false, message: `the worker died: ${message}` };
}
