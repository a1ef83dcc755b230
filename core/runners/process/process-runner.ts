/**
 * The process tier: each untrusted plugin runs in its own detached child
 * process, started on first use, under Node's permission model and (where
 * the machine allows) its own network and PID namespaces. The child runs the
 * plugin's tasks on its own main thread; the host reaches it over framed
 * messages on fd 3 and exposes its RPC (log, progress, callTool, sandboxTools)
 * behind the same allow-list guard as the thread tier. A call that overruns
 * twice its timeout has the whole child killed with SIGKILL; a crash, an
 * out-of-memory or a kill is reported as `crashed` and the next call gets a
 * fresh child.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ChildHandle, type ChildEnd, type RequestResult } from './child-handle.js';
import { checkReply } from './frames.js';
import { findEscapingSymlink, pluginReadRoots, runtimeReadPaths } from '../../../boundary/launch/paths.js';
import { RpcPort } from '../../../boundary/channel.js';
import { childCommand, expectedProtections } from './spawn.js';
import type { Protections } from '../protections.js';
import { exposeGuardedEndpoint, type GuardStats } from '../rpc-guard.js';
import { dropMessage, type DroppedMessages } from '../../../boundary/worker-messages.js';
import { HOST_RPC_METHODS } from '../../../boundary/rpc-methods.js';
import type {
  CheckVerdict,
  NormalizedResult,
  HostRpc,
  RawManifest,
  WorkerReply,
  WorkerTask,
  TaskScope,
} from '../../../boundary/protocol.js';
import { checkTask, EMPTY_SCOPE_PARTS, handlerTask } from '../tasks.js';
import { hostRpc } from '../host-rpc.js';
import { DeadlineSweeper, HARD_DEADLINE_SWEEP_MS } from '../../../boundary/deadlines.js';
import {
  heapLimits,
  type CallHooks,
  type CheckRequest,
  type HandlerRequest,
  type ManifestExtractor,
  type Runner,
  type RunnerStats,
} from '../runner.js';
import type { RunOutcome, RunnerFailure } from '../../../boundary/runner-failure.js';
import { protectedMounts } from '../../../boundary/launch/protected-mounts.js';
import type { SerializedError } from '../../../boundary/errors.js';
import type { ResourceLimits } from '../../../boundary/launch/resources.js';

/** What the child may do beyond running the plugin's own files: absolute, resolved paths. */
export interface SandboxGrants {
  network: boolean;
  fsRead: string[];
  fsWrite: string[];
}

/** Options of one plugin's process runner. */
interface ProcessRunnerOptions {
  /** the plugin's name, for messages */
  name: string;
  /** file URL of the plugin's entry module */
  entry: string;
  /** the plugin's package folder (real path) */
  dir: string;
  /** real paths of its direct dependencies; their dependencies are found from there */
  dependencyDirs: readonly string[];
  /** the host's working directory: the child's cwd and ctx.cwd */
  cwd: string;
  /** ctx.roots and ctx.options of the plugin's checks and handlers (default: none) */
  scope?: Omit<TaskScope, 'cwd'>;
  /** the complete environment of the plugin's child */
  env: Record<string, string>;
  /** what the child may read, write and reach; absent = nothing granted (manifest extraction) */
  grants?: SandboxGrants;
  /** the child's heap limit */
  memoryMb: number;
  /** limits on the child's processes, memory and file size (the `resources` config key) */
  resources?: ResourceLimits;
  /** with maxQueue, bounds the calls in flight (threads + maxQueue); the child runs them all on its one thread */
  threads: number;
  maxQueue: number;
  /** the host's largest result cap; sizes the channel's frame limit */
  maxResultChars: number;
  idleTimeoutMs?: number;
  startTimeoutMs?: number;
}

const CHILD_ENTRY = fileURLToPath(new URL('../../../sandbox/child/child-main.js', import.meta.url));
/** After a manifest task's budget, the child gets this long to report the timeout before it is killed. */
const MANIFEST_KILL_GRACE_MS = 1_000;
/** A `ctx.log` line is cut to this before it reaches the host's listeners. */
const MAX_LOG_CHARS = 8_000;

type Exchange = RequestResult | { kind: 'deadline' } | { kind: 'cancelled' };

function crashed(message: string, outOfMemory = false): { ok: false; failure: RunnerFailure } {
  return { ok: false, failure: { kind: 'crashed', message, outOfMemory } };
}

function denied(message: string): { ok: false; error: SerializedError } {
  return { ok: false, error: { name: 'PermissionDenied', code: 'PERMISSION_DENIED', message } };
}

/** Runs an untrusted plugin's code in a sandboxed child process. */
export class ProcessRunner implements Runner, ManifestExtractor {
  readonly tier = 'process' as const;
  private child: ChildHandle | undefined;
  private starting: Promise<ChildHandle> | undefined;
  private readonly retiring = new Set<ChildHandle>();
  private verified: Promise<string | undefined> | undefined;
  private readonly calls = new Map<string, CallHooks>();
  private readonly guard: GuardStats = { passed: 0, refused: 0 };
  private readonly dropped: DroppedMessages = { count: 0 };
  private readonly api: HostRpc;
  private inFlight = 0;
  private completed = 0;
  private started = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  // The 2× hard deadlines are backstops: swept on one timer rather than timed one by one.
  private readonly deadlines = new DeadlineSweeper(HARD_DEADLINE_SWEEP_MS);
  private lastProtections: Protections | undefined;
  private closed = false;

  constructor(private readonly options: ProcessRunnerOptions) {
    this.api = hostRpc(this.calls, MAX_LOG_CHARS);
  }

  /**
   * Extracts the plugin's manifest inside its sandbox (`entry` must be this runner's own). The
   * child stops the task at `timeoutMs` (counted once the child is up) and is killed a second later.
   */
  extract(entry: string, timeoutMs: number): Promise<RunOutcome<RawManifest>> {
    if (entry !== this.options.entry) return Promise.resolve(denied('a process runner extracts only its own plugin'));
    return this.run<RawManifest>({ kind: 'manifest', entry }, timeoutMs);
  }

  check(request: CheckRequest, hooks: CallHooks): Promise<RunOutcome<CheckVerdict>> {
    return this.run<CheckVerdict>(
      checkTask(this.options.entry, { cwd: this.options.cwd, ...(this.options.scope ?? EMPTY_SCOPE_PARTS) }, request),
      request.timeoutMs,
      hooks,
    );
  }

  handle(request: HandlerRequest, hooks: CallHooks, signal?: AbortSignal): Promise<RunOutcome<NormalizedResult>> {
    return this.run<NormalizedResult>(
      handlerTask(this.options.entry, { cwd: this.options.cwd, ...(this.options.scope ?? EMPTY_SCOPE_PARTS) }, request),
      request.timeoutMs,
      hooks,
      signal,
    );
  }

  stats(): RunnerStats {
    const live = this.child !== undefined && !this.child.gone;
    // One thread runs every call of the child, interleaved at each await: a call waiting on a nested
    // call holds nothing the nested call needs, so no call back into the plugin waits on a capacity.
    return {
      started: live,
      threads: live ? 1 : 0,
      inFlight: this.inFlight,
      capacity: Number.POSITIVE_INFINITY,
      completed: this.completed,
      guard: { ...this.guard },
      dropped: { ...this.dropped },
    };
  }

  /** The protections this plugin's child runs (or would run) under on this machine. */
  protections(): Protections {
    return this.lastProtections ?? expectedProtections(this.options.grants?.network ?? false, this.options.resources);
  }

  /** Process-level facts for tests and diagnostics: children started, the live pid, output seen. */
  diagnostics(): { childrenStarted: number; pid?: number; outputBytesSeen: number; outputBytesHeld: number } {
    const child = this.child;
    const out = { childrenStarted: this.started, outputBytesSeen: 0, outputBytesHeld: 0 };
    if (!child || child.gone) return out;
    return {
      ...out,
      ...(child.pid !== undefined ? { pid: child.pid } : {}),
      outputBytesSeen: child.stdout.seen + child.stderr.seen,
      outputBytesHeld: child.stdout.bytes + child.stderr.bytes,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.deadlines.stop();
    const children = new Set(this.retiring);
    if (this.child) children.add(this.child);
    const starting = await this.starting?.catch(() => undefined);
    if (starting) children.add(starting);
    this.child = undefined;
    this.retiring.clear();
    for (const child of children)
      child.kill({ message: 'was stopped because the host is closing', outOfMemory: false });
    // Children and their pipes are unref'd, so this timer is what keeps the loop alive until they are reaped.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...children].map((child) => child.closed)),
      new Promise((resolve) => (timer = setTimeout(resolve, 5_000))),
    ]);
    clearTimeout(timer);
  }

  private async run<T>(
    task: WorkerTask,
    timeoutMs: number,
    hooks?: CallHooks,
    signal?: AbortSignal,
  ): Promise<RunOutcome<T>> {
    if (this.closed) return { ok: false, failure: { kind: 'closed' } };
    if (this.inFlight >= this.options.threads + this.options.maxQueue) {
      return { ok: false, failure: { kind: 'queue-full', limit: this.options.maxQueue } };
    }
    if (signal?.aborted) return { ok: false, failure: { kind: 'cancelled' } };
    const callId = 'callId' in task ? task.callId : '';
    if (hooks) this.calls.set(callId, hooks);
    this.inFlight++;
    clearTimeout(this.idleTimer);
    try {
      const refusal = await this.verify();
      if (refusal) return denied(refusal);
      let child: ChildHandle;
      try {
        child = await this.acquire();
      } catch (error) {
        if (this.closed) return { ok: false, failure: { kind: 'closed' } };
        return crashed((error as Error).message);
      }
      return (await this.exchange(child, task, timeoutMs, signal)) as RunOutcome<T>;
    } finally {
      this.inFlight--;
      this.completed++;
      if (hooks) this.calls.delete(callId);
      if (this.inFlight === 0) this.armIdle();
    }
  }

  /** The load-time symlink rule, checked once per runner: a refusal message, or undefined. */
  private verify(): Promise<string | undefined> {
    this.verified ??= (async () => {
      const roots = pluginReadRoots(this.options.dir, this.options.dependencyDirs);
      const allowed = [...runtimeReadPaths(), ...roots, ...(this.options.grants?.fsRead ?? [])];
      const found = await findEscapingSymlink(roots, allowed);
      if (!found) return undefined;
      if ('tooLarge' in found)
        return (
          `${this.options.name}: its package has more than ${found.tooLarge} files, too many to check for ` +
          `symbolic links that escape the sandbox`
        );
      return (
        `${this.options.name}: ${found.link} is a symbolic link to ${found.target}, outside what the plugin may ` +
        `read; the untrusted tier refuses to run it (Node's permission model follows links)`
      );
    })();
    return this.verified;
  }

  private acquire(): Promise<ChildHandle> {
    if (this.child && !this.child.gone) return Promise.resolve(this.child);
    this.starting ??= this.spawn().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async spawn(): Promise<ChildHandle> {
    const { options } = this;
    const grants = options.grants ?? { network: false, fsRead: [], fsWrite: [] };
    const roots = pluginReadRoots(options.dir, options.dependencyDirs);
    const command = childCommand({
      childEntry: CHILD_ENTRY,
      readPaths: [...runtimeReadPaths(), ...roots, ...grants.fsRead],
      writePaths: grants.fsWrite,
      readOnlyPaths: protectedMounts(grants.fsWrite, options.scope?.roots.protect),
      memoryMb: options.memoryMb,
      network: grants.network,
      cwd: options.cwd,
      ...(options.resources ? { resources: options.resources } : {}),
    });
    this.lastProtections = command.protections;
    let port: RpcPort | undefined;
    const child = await ChildHandle.start({
      command,
      cwd: options.cwd,
      init: { type: 'init', env: options.env, entry: options.entry, maxFrameBytes: this.maxFrameBytes() },
      maxFrameBytes: this.maxFrameBytes(),
      startTimeoutMs: options.startTimeoutMs ?? 10_000,
      rssBudgetMb: command.protections.memoryWatchdog ? this.rssBudgetMb() : 0,
      heapLimitMb: options.memoryMb,
      ...(options.resources ? { limits: options.resources } : {}),
      onRpc: (data) => port?.deliver(data),
      onDropped: (reason) => dropMessage(this.dropped, reason),
    });
    this.started++;
    port = new RpcPort((data) => {
      try {
        child.send({ type: 'rpc', data });
      } catch {
        // A host reply JSON cannot carry: the child's call waits for its deadline instead of taking the host down.
      }
    });
    exposeGuardedEndpoint(this.api, port, HOST_RPC_METHODS, this.guard);
    void child.ended.then(() => {
      if (this.child === child) this.child = undefined;
      this.retiring.delete(child);
    });
    if (this.closed) {
      child.kill({ message: 'was stopped because the host is closing', outOfMemory: false });
      throw new Error('the runner is closed');
    }
    this.child = child;
    return child;
  }

  /** Frames carry at most a capped result, JSON-escaped (up to 6 bytes a character), plus envelope. */
  private maxFrameBytes(): number {
    return Math.max(6 * this.options.maxResultChars + 1024 * 1024, 8 * 1024 * 1024);
  }

  /** The child's one heap with its young generation, plus Node's own footprint. */
  private rssBudgetMb(): number {
    const { maxOldGenerationSizeMb, maxYoungGenerationSizeMb } = heapLimits(this.options.memoryMb);
    return maxOldGenerationSizeMb + maxYoungGenerationSizeMb + 256;
  }

  private async exchange(
    child: ChildHandle,
    task: WorkerTask,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<RunOutcome<unknown>> {
    const id = randomUUID();
    // The child stops a check or handler at timeoutMs (ctx.signal, TOOL_TIMEOUT); code that never yields
    // holds the child's only thread, so the host kills the child at 2×. A manifest task has no deadline of
    // its own: the child stops waiting for it at timeoutMs, the host kills soon after.
    const manifest = task.kind === 'manifest';
    const abortAfterMs = timeoutMs;
    const hardMs = manifest ? timeoutMs + MANIFEST_KILL_GRACE_MS : timeoutMs * 2;
    const deadline = this.deadlines.start(hardMs);
    let onAbort: (() => void) | undefined;
    const result = await new Promise<Exchange>((resolve) => {
      deadline.once('abort', () => resolve({ kind: 'deadline' }));
      onAbort = () => resolve({ kind: 'cancelled' });
      signal?.addEventListener('abort', onAbort, { once: true });
      void child.request({ type: 'task', id, task, abortAfterMs }).then((outcome) => {
        resolve(outcome);
        // A reply arriving after a cancel or deadline may be what a retired child was waiting for.
        this.releaseIfRetired(child);
      });
    });
    this.deadlines.release(deadline);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    const what =
      task.kind === 'handler'
        ? `a call to ${task.tool}`
        : task.kind === 'check'
          ? 'an availability check'
          : 'manifest extraction';
    switch (result.kind) {
      case 'deadline':
        child.kill({
          message: `was killed because ${what} overran its hard deadline of ${hardMs} ms`,
          outOfMemory: false,
        });
        return { ok: false, failure: { kind: 'timeout', timeoutMs } };
      case 'cancelled':
        child.send({ type: 'cancel', id });
        return { ok: false, failure: { kind: 'cancelled' } };
      case 'ended':
        if (this.closed) return { ok: false, failure: { kind: 'closed' } };
        return crashed(this.endMessage(result.end), result.end.outOfMemory);
    }
    const reply = checkReply(task.kind, result.reply);
    if (!reply) {
      dropMessage(this.dropped, `a malformed reply to ${what}`);
      child.kill({ message: `sent a malformed reply to ${what}`, outOfMemory: false });
      return crashed(`the plugin's process sent a malformed reply to ${what} and was stopped`);
    }
    if (!reply.ok && 'failure' in reply) {
      if (reply.failure.kind === 'timeout') return { ok: false, failure: { kind: 'timeout', timeoutMs } };
      // A worker died in the child: whatever it broke, the next call starts from a fresh process.
      this.retire(child);
      return { ok: false, failure: reply.failure };
    }
    return reply as WorkerReply;
  }

  private endMessage(end: ChildEnd): string {
    return `${this.options.name}'s process ${end.message}`;
  }

  private retire(child: ChildHandle): void {
    if (this.child === child) this.child = undefined;
    this.retiring.add(child);
    this.releaseIfRetired(child);
  }

  private releaseIfRetired(child: ChildHandle): void {
    if (this.retiring.has(child) && child.inFlight === 0) {
      this.retiring.delete(child);
      child.kill({ message: 'was replaced after a worker crashed', outOfMemory: false });
    }
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer);
    if (this.closed || !this.child) return;
    this.idleTimer = setTimeout(() => {
      const child = this.child;
      if (!child || this.inFlight > 0) return;
      this.child = undefined;
      child.kill({ message: 'was stopped after being idle', outOfMemory: false });
    }, this.options.idleTimeoutMs ?? 30_000).unref();
  }
}
