/**
 * The calls running in a realm: each one's deadline, counted from when its task began here, and
 * how a host cancel reaches it.
 */
import { codedError } from '../../boundary/errors.js';
import { DeadlineSweeper, type Sweepable } from '../../boundary/deadlines.js';
import { CallTable } from '../../boundary/call-table.js';

/**
 * How one running call stops: its deadline passing (the runner's sweeper calls
 * `abort`) or a host cancel aborts ctx.signal and rejects the call. It is its own
 * sweeper entry, so a call allocates no emitter, listener or timer; the
 * AbortController is made only when the handler reads ctx.signal. Most never do,
 * and creating one per call is a measurable share of a trivial dispatch (see
 * docs/performance.md).
 */
export class CallStop implements Sweepable {
  at = Infinity;
  ms = 0;
  slot = -1;
  aborted = false;
  reason: unknown;
  private controller: AbortController | undefined;
  /** rejects the call's race, while the handler's promise is pending */
  rejectDeadline: ((reason: unknown) => void) | undefined;

  /** Fires once: ctx.signal (if read) and the call's race. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    this.rejectDeadline?.(reason);
  }

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.aborted && !this.controller.signal.aborted) this.controller.abort(this.reason);
    return this.controller.signal;
  }
}

/** The calls running here by call id, each with its deadline, so a host cancel reaches ctx.signal. */
export class RunningCalls {
  /**
   * Call deadlines, counted from when the task began here, on one coarse timer
   * (see deadlines.ts); they fire up to 10 ms late. The tier's hard deadline, for
   * code that never yields, comes later: in the thread tier 1 s after this one
   * (plus a cold-start allowance), in the process tier at 2× the timeout in the host.
   */
  private readonly deadlines = new DeadlineSweeper(10, (ms) =>
    codedError('TOOL_TIMEOUT', `did not finish within ${ms} ms`),
  );
  private readonly running = new CallTable<CallStop>();

  /**
   * A call's deadline, counted from when the task began here (not from when it
   * was queued, so a cold pool's startup does not eat the budget); `settled`
   * ends it. The tier keeps a hard deadline for code that never yields.
   */
  begin(callId: string, timeoutMs: number): CallStop {
    const stop = this.deadlines.watch(new CallStop(), timeoutMs);
    this.running.set(callId, stop);
    return stop;
  }

  /** The call ended: its deadline is no longer watched and a cancel no longer reaches it. */
  settled(callId: string, stop: CallStop): void {
    this.running.delete(callId);
    this.deadlines.unwatch(stop);
  }

  /** Aborts the running call `callId` (its ctx.signal, and its result as TOOL_CANCELLED). */
  cancel(callId: string): void {
    this.running.get(callId)?.abort(codedError('TOOL_CANCELLED', 'cancelled by the caller'));
  }
}

/**
 * What `work` (a handler's or check's promise) comes to, or the call's deadline or cancel,
 * whichever is first. A value returned synchronously is not raced: no deadline can fire
 * before it returns.
 */
export function raced(stop: CallStop, work: PromiseLike<unknown>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    stop.rejectDeadline = reject;
    work.then(resolve, reject);
  });
}
