/**
 * One MCP session's tasks (MCP 2025-11-25, "Tasks"): the calls a client made as tasks, each
 * running apart from the request that started it, kept until its ttl, bounded in number, and
 * cancelled all at once when the session goes away (`close()`). The wire methods are in tasks.ts.
 */
import { randomUUID } from 'node:crypto';
import type { TaskStatusV1, TaskV1 } from '@modelcontextprotocol/ext-tasks/core/v1';
import { type CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { timers, type TimerHandle, type Timers } from '../../state/clock.js';
import type { Clock } from '../../state/clock.js';

/** Limits of one session's tasks; every field has a default. */
export interface TaskScopeOptions {
  /**
   * tasks kept at once (working or holding a result); default 32. A new task evicts the oldest finished one, or is
   * refused when all are working
   */
  maxTasks?: number;
  /** how long a task and its result are kept when the client asks for no ttl; default 10 minutes */
  defaultTtlMs?: number;
  /** the most a client may ask for; default 1 hour */
  maxTtlMs?: number;
  /** how often a client is told to poll `tasks/get`; default 1000 ms */
  pollIntervalMs?: number;
  /** tasks per `tasks/list` page; default 50 */
  pageSize?: number;
  /** the clock ttls are kept by (default the real one) */
  clock?: Clock;
}

/** What a task's work is handed: its signal (cancel, ttl, session close) and what it may report. */
export interface TaskWork {
  readonly taskId: string;
  /** aborts when the task is cancelled, expires or its session closes; never when the request that made it ends */
  readonly signal: AbortSignal;
  /**
   * marks the task `input_required` while `wait` runs (an approval or elicitation the client must answer), `working`
   * after
   */
  awaitInput<T>(wait: () => Promise<T>): Promise<T>;
}

/** Where a task's status changes go (`notifications/tasks/status`); failures to deliver are the sender's to swallow. */
type TaskStatusListener = (task: TaskV1) => void;

/**
 * How a finished task answers `tasks/result`: the call's result, or the JSON-RPC error the call would have answered.
 */
type TaskOutcome = { result: CallToolResult } | { error: ProtocolError };

interface Entry {
  task: TaskV1;
  /** insertion order, the `tasks/list` cursor */
  seq: number;
  controller: AbortController;
  outcome?: TaskOutcome;
  /** resolves when the task reaches a terminal status (or is dropped) */
  settled: Promise<void>;
  settle(): void;
  expiry: TimerHandle;
  onStatus: TaskStatusListener;
  /** nested awaitInput calls in flight */
  waitingForInput: number;
}

const TERMINAL: ReadonlySet<TaskStatusV1> = new Set(['completed', 'failed', 'cancelled']);

/** A task status is terminal: it never changes again. */
function isTerminal(status: TaskStatusV1): boolean {
  return TERMINAL.has(status);
}

/** The error a tasks/* request gets for a task this session does not hold (unknown, expired, or another session's). */
function notFound(taskId: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `No task ${taskId} in this session (unknown, expired, or another session's)`,
  );
}

/**
 * The tasks of one MCP session (one stdio connection, one HTTP session): the lead server
 * creates one per session and hands it to every server that serves that session.
 */
export class TaskScope {
  readonly #entries = new Map<string, Entry>();
  readonly #maxTasks: number;
  readonly #defaultTtlMs: number;
  readonly #maxTtlMs: number;
  readonly #pollIntervalMs: number;
  readonly #pageSize: number;
  readonly #timers: Timers;
  #seq = 0;
  #closed = false;

  constructor(options: TaskScopeOptions = {}) {
    this.#maxTasks = options.maxTasks ?? 32;
    this.#maxTtlMs = options.maxTtlMs ?? 3_600_000;
    this.#defaultTtlMs = Math.min(options.defaultTtlMs ?? 600_000, this.#maxTtlMs);
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#pageSize = options.pageSize ?? 50;
    this.#timers = timers(options.clock);
  }

  /** Tasks held now (working or finished, not yet expired). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Starts `work` as a new task and returns the task at once (status `working`). A result with
   * `isError` makes it `failed` (its result still served by `tasks/result`); a throw makes it
   * `failed` with that error. Throws a JSON-RPC error when the session is closed or full.
   */
  start(
    requestedTtlMs: number | undefined,
    work: (task: TaskWork) => Promise<CallToolResult>,
    onStatus: TaskStatusListener,
  ): TaskV1 {
    if (this.#closed)
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'This session is closed: it starts no tasks');
    this.#makeRoom();
    const taskId = randomUUID();
    const now = new Date(this.#timers.now()).toISOString();
    const ttl = this.#ttl(requestedTtlMs);
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const entry: Entry = {
      task: { taskId, status: 'working', createdAt: now, lastUpdatedAt: now, ttl, pollInterval: this.#pollIntervalMs },
      seq: ++this.#seq,
      controller: new AbortController(),
      settled,
      settle,
      // Kept for ttl from creation (the spec's reading of ttl); a timer never holds the process open.
      expiry: this.#timers.after(ttl, () => this.#expire(entry), { unref: true }),
      onStatus,
      waitingForInput: 0,
    };
    this.#entries.set(taskId, entry);
    const handle: TaskWork = {
      taskId,
      signal: entry.controller.signal,
      awaitInput: (wait) => this.#awaitInput(entry, wait),
    };
    // Started after the entry exists, so a synchronous progress or status report finds it.
    queueMicrotask(() => {
      work(handle).then(
        (result) =>
          this.#finish(
            entry,
            result.isError ? 'failed' : 'completed',
            { result },
            result.isError ? 'The tool reported an error' : undefined,
          ),
        (error: unknown) =>
          this.#finish(
            entry,
            'failed',
            { error: asProtocolError(error) },
            error instanceof Error ? error.message : String(error),
          ),
      );
    });
    return { ...entry.task };
  }

  /** The task's current state (`tasks/get`). */
  get(taskId: string): TaskV1 {
    return { ...this.#entry(taskId).task };
  }

  /**
   * Waits until the task is terminal and returns its outcome (`tasks/result`): the call's
   * result, or throws the call's JSON-RPC error. `signal` stops the wait, not the task.
   */
  async result(taskId: string, signal?: AbortSignal): Promise<CallToolResult> {
    const entry = this.#entry(taskId);
    if (!entry.outcome) {
      const stopped = new Promise<never>((_resolve, reject) => {
        if (signal?.aborted) reject(signal.reason);
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      await Promise.race([entry.settled, stopped]);
    }
    const outcome = entry.outcome;
    if (!outcome) throw notFound(taskId);
    if ('error' in outcome) throw outcome.error;
    return outcome.result;
  }

  /** One page of this session's tasks, oldest first (`tasks/list`); the cursor is opaque to the client. */
  list(cursor?: string): { tasks: TaskV1[]; nextCursor?: string } {
    let after = 0;
    if (cursor !== undefined) {
      after = Number(cursor);
      if (!Number.isSafeInteger(after) || after < 0)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid tasks/list cursor: ${cursor}`);
    }
    const page: Entry[] = [];
    let more = false;
    for (const entry of this.#entries.values()) {
      if (entry.seq <= after) continue;
      if (page.length === this.#pageSize) {
        more = true;
        break;
      }
      page.push(entry);
    }
    const tasks = page.map((entry) => ({ ...entry.task }));
    return more ? { tasks, nextCursor: String(page.at(-1)!.seq) } : { tasks };
  }

  /**
   * Cancels a working task (`tasks/cancel`): its call's signal aborts and it is `cancelled` at once. A finished task
   * cannot be.
   */
  cancel(taskId: string): TaskV1 {
    const entry = this.#entry(taskId);
    if (isTerminal(entry.task.status)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Task ${taskId} is already ${entry.task.status}: only a working task can be cancelled`,
      );
    }
    this.#cancel(entry, 'Cancelled by the client');
    return { ...entry.task };
  }

  /**
   * The session went away: every working task is cancelled (its call aborted), every result
   * dropped, every `tasks/result` still waiting answered with an error; no task starts after.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const entry of this.#entries.values()) {
      if (!isTerminal(entry.task.status)) this.#cancel(entry, 'The session closed');
      this.#drop(entry);
    }
  }

  #entry(taskId: string): Entry {
    if (this.#closed)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `No task ${taskId}: the session closed, its tasks were cancelled and their results dropped`,
      );
    const entry = this.#entries.get(taskId);
    if (!entry) throw notFound(taskId);
    return entry;
  }

  #ttl(requested: number | undefined): number {
    if (requested === undefined || !Number.isFinite(requested) || requested <= 0) return this.#defaultTtlMs;
    return Math.min(Math.floor(requested), this.#maxTtlMs);
  }

  /** Frees a place for one more task: drops the oldest finished task if the session is full, or refuses. */
  #makeRoom(): void {
    if (this.#entries.size < this.#maxTasks) return;
    for (const entry of this.#entries.values()) {
      if (isTerminal(entry.task.status)) return this.#drop(entry);
    }
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      `This session already runs ${this.#maxTasks} tasks (the limit): wait for one to finish, or cancel one ` +
        `with tasks/cancel`,
    );
  }

  async #awaitInput<T>(entry: Entry, wait: () => Promise<T>): Promise<T> {
    if (entry.waitingForInput++ === 0 && entry.task.status === 'working')
      this.#setStatus(entry, 'input_required', 'Waiting for the client to answer a request');
    try {
      return await wait();
    } finally {
      if (--entry.waitingForInput === 0 && entry.task.status === 'input_required') this.#setStatus(entry, 'working');
    }
  }

  #finish(entry: Entry, status: TaskStatusV1, outcome: TaskOutcome, message: string | undefined): void {
    // A cancelled or dropped task keeps its status: the call's late answer is not wanted.
    if (isTerminal(entry.task.status) || this.#entries.get(entry.task.taskId) !== entry) return;
    entry.outcome = outcome;
    this.#setStatus(entry, status, message);
    entry.settle();
  }

  #cancel(entry: Entry, message: string): void {
    entry.outcome = {
      error: new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `Task ${entry.task.taskId} was cancelled (${message.toLowerCase()}): it has no result`,
      ),
    };
    this.#setStatus(entry, 'cancelled', message);
    entry.controller.abort(new Error(message));
    entry.settle();
  }

  /** ttl elapsed: a task still running is cancelled (no one could fetch its result), then it is forgotten. */
  #expire(entry: Entry): void {
    if (!isTerminal(entry.task.status)) this.#cancel(entry, 'Its ttl elapsed');
    this.#drop(entry);
  }

  #drop(entry: Entry): void {
    this.#timers.cancel(entry.expiry);
    this.#entries.delete(entry.task.taskId);
    entry.settle();
  }

  #setStatus(entry: Entry, status: TaskStatusV1, message?: string): void {
    const task: TaskV1 = { ...entry.task, status, lastUpdatedAt: new Date(this.#timers.now()).toISOString() };
    if (message === undefined) delete task.statusMessage;
    else task.statusMessage = message;
    entry.task = task;
    entry.onStatus({ ...task });
  }
}

/** A call that threw: its JSON-RPC error as is, anything else an internal error with its message. */
function asProtocolError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  return new ProtocolError(ProtocolErrorCode.InternalError, error instanceof Error ? error.message : String(error));
}
