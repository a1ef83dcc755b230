/**
 * The thread tier, one plugin's view of a worker pool (thread-pool.ts): the
 * pool trusted plugins share, or the plugin's own (it holds env grants, or its
 * entry says `pool: 'own'`; see core/load/pool-choice.ts). It builds the
 * plugin's tasks (its entry, its env grant, its cwd) and hands them to the
 * pool; a nested call from a worker of the same pool runs inline there.
 */
import { type ThreadPool, SOFT_TO_HARD_GRACE_MS } from './thread-pool.js';
import { checkTask, EMPTY_SCOPE_PARTS, handlerTask, packScope } from '../tasks.js';
import { pinChangeOf, type PinChange, type Pins } from '../../../boundary/pins.js';
import type { CheckVerdict, NormalizedResult, TaskScope } from '../../../boundary/protocol.js';
import type {
  CallHooks,
  CallOrigin,
  CheckRequest,
  HandlerRequest,
  PoolPlacement,
  Runner,
  RunnerStats,
} from '../runner.js';
import type { RunOutcome } from '../../../boundary/runner-failure.js';

/** Options of one plugin's thread runner. */
interface ThreadRunnerOptions {
  /** file URL of the plugin's entry module */
  entry: string;
  /** the plugin's name: its queue in the pool */
  name: string;
  /** the host's working directory, passed to handlers as ctx.cwd */
  cwd: string;
  /** ctx.roots and ctx.options of the plugin's checks and handlers (default: none) */
  scope?: Omit<TaskScope, 'cwd'>;
  /** the plugin's env grant: the whole of its tasks' `process.env` and `ctx.env` */
  env: Record<string, string>;
  /** the pool it runs in */
  pool: ThreadPool;
  /** which pool it is and why: an `own` pool is this plugin's alone (closed with it) */
  placement: PoolPlacement;
  /** the plugin's pins, taken when the host loaded it: a worker checks them before importing it */
  pins?: Pins;
  /** called when a worker refused the plugin because a pinned file changed (PLUGIN_CHANGED) */
  onChanged?(change: PinChange): void;
}

/** Runs a plugin's code in a lazily started pool of worker threads. */
export class ThreadRunner implements Runner {
  readonly tier = 'thread' as const;
  private inFlight = 0;
  private completed = 0;
  private closed = false;
  /** The plugin's roots, options and env grant packed once, sent with every task instead of them (see packScope). */
  private readonly packed: string | undefined;
  /** The plugin's task scope (cwd, roots, options), built once rather than per task. */
  private readonly scope: TaskScope;

  constructor(private readonly options: ThreadRunnerOptions) {
    this.packed = packScope(options.scope ?? EMPTY_SCOPE_PARTS, options.env);
    this.scope = { cwd: options.cwd, ...(options.scope ?? EMPTY_SCOPE_PARTS) };
    if (options.pins) options.pool.pin(options.entry, options.pins);
  }

  /** The pool this plugin's calls run in. */
  get pool(): ThreadPool {
    return this.options.pool;
  }

  private track<T>(work: Promise<RunOutcome<T>>): Promise<RunOutcome<T>> {
    this.inFlight++;
    // (A pool's run settles with an outcome, never a rejection; counted either way.)
    return work.then(
      (outcome) => {
        this.finished();
        if (!outcome.ok && 'error' in outcome && outcome.error.code === 'PLUGIN_CHANGED')
          this.options.onChanged?.(pinChangeOf(outcome.error)!);
        return outcome;
      },
      (error: unknown) => {
        this.finished();
        throw error;
      },
    );
  }

  private finished(): void {
    this.inFlight--;
    this.completed++;
  }

  check(request: CheckRequest, hooks: CallHooks): Promise<RunOutcome<CheckVerdict>> {
    if (this.closed) return Promise.resolve({ ok: false, failure: { kind: 'closed' } });
    const { entry, env, name } = this.options;
    const task = checkTask(entry, this.scope, request, env, this.packed);
    return this.track(
      this.pool.run<CheckVerdict>(task, {
        key: name,
        hooks,
        timeoutMs: request.timeoutMs,
        hardMs: request.timeoutMs + SOFT_TO_HARD_GRACE_MS,
      }),
    );
  }

  handle(
    request: HandlerRequest,
    hooks: CallHooks,
    signal?: AbortSignal,
    origin?: CallOrigin,
  ): Promise<RunOutcome<NormalizedResult>> {
    if (this.closed) return Promise.resolve({ ok: false, failure: { kind: 'closed' } });
    const { entry, env, name } = this.options;
    const task = handlerTask(entry, this.scope, request, env, this.packed);
    const call = {
      key: name,
      session: request.sessionId,
      hooks,
      timeoutMs: request.timeoutMs,
      hardMs: request.timeoutMs + SOFT_TO_HARD_GRACE_MS,
      signal,
    };
    if (this.pool.holds(origin)) return this.track(this.pool.runInline(origin, task, call));
    return this.track(this.pool.run<NormalizedResult>(task, call));
  }

  runsInline(origin: CallOrigin | undefined): boolean {
    return this.pool.holds(origin);
  }

  /** Threads share the host's process: no OS-level protections of their own. */
  protections(): undefined {
    return undefined;
  }

  stats(): RunnerStats {
    const pool = this.pool.stats();
    return {
      started: pool.started,
      threads: pool.threads,
      inFlight: this.inFlight,
      capacity: this.pool.capacity,
      completed: this.completed,
      guard: { ...this.pool.guard },
      dropped: { ...this.pool.dropped },
    };
  }

  placement(): PoolPlacement {
    return this.options.placement;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.options.placement.kind === 'own') await this.pool.close();
  }
}
