/**
 * Cheap per-call deadlines. Arming and clearing a timer for every call, and
 * handing Piscina an AbortSignal (an EventTarget), were each a measurable
 * share of a trivial dispatch (bench scenario 1, docs/performance.md). A
 * `Deadline` is a minimal abort signal with `aborted` and a list of listeners,
 * which Piscina accepts as its signal, and a `DeadlineSweeper` checks every live
 * deadline on one coarse timer that runs only while some call is in flight.
 */
import { performance } from 'node:perf_hooks';

/**
 * How often runners and the process-tier child check their calls' hard deadlines: they are backstops, so 25 ms late is
 * fine.
 */
export const HARD_DEADLINE_SWEEP_MS = 25;

/** What a `DeadlineSweeper` watches: when it is due, how long it was, and how it fires. */
export interface Sweepable {
  /** performance.now() at which it fires */
  at: number;
  /** its length, for the abort reason */
  ms: number;
  /** its place in the sweeper's list while watched, else -1 (the sweeper's to keep) */
  slot: number;
  abort(reason: unknown): void;
}

/**
 * An abort signal for Piscina, fired by a sweeper, a timer, or by hand. Piscina takes it as an
 * `AbortSignalEventTarget` (`addEventListener` / `removeEventListener` and `aborted`); `once`
 * and `off` are the same for toolshed's own listeners. Not an EventEmitter: one per call, and
 * an emitter's construction and its `once` wrapper (a state object and a bound function per
 * listener) were a measurable share of what the hard deadline costs a dispatch.
 */
export class Deadline implements Sweepable {
  aborted = false;
  reason: unknown;
  /** performance.now() at which a swept deadline fires */
  at = Infinity;
  /** its length, for the abort reason */
  ms = 0;
  slot = -1;
  private timer: NodeJS.Timeout | undefined;
  private cleanups: Array<() => void> | undefined;
  /** called once, at abort, in the order added */
  private listeners: Array<() => void> | undefined;

  /** Calls `listener` when it aborts (once; never if it already has). */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.listeners;
    const at = listeners ? listeners.indexOf(listener) : -1;
    if (at >= 0) listeners!.splice(at, 1);
  }

  /** Same as addEventListener. */
  once(type: 'abort', listener: () => void): void {
    this.addEventListener(type, listener);
  }

  /** Same as removeEventListener. */
  off(type: 'abort', listener: () => void): void {
    this.removeEventListener(type, listener);
  }

  /** Fires after `ms` on a timer of its own (for rare paths such as a cancel's grace). */
  abortAfter(ms: number, reason: unknown): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.abort(reason), ms);
    this.timer.unref();
  }

  /** Fires now (once). */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  /** Runs `fn` at dispose. */
  onDispose(fn: () => void): void {
    (this.cleanups ??= []).push(fn);
  }

  /** Stops its timer and detaches listeners. */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    const cleanups = this.cleanups;
    this.cleanups = undefined;
    if (cleanups) for (const fn of cleanups) fn();
  }
}

/**
 * Fires deadlines up to `tickMs` late from one timer that stops when nothing is pending. The
 * live deadlines are an array, each knowing its place (not a Set: see CallTable in call-table.ts
 * for what a Set churned per call costs the garbage collector).
 */
export class DeadlineSweeper {
  private readonly live: Sweepable[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly tickMs: number,
    /** the abort reason of a deadline that passed */
    private readonly reasonFor: (ms: number) => unknown = (ms) =>
      new DOMException(`deadline of ${ms} ms passed`, 'TimeoutError'),
  ) {}

  /** A deadline `ms` from now; `release` it when the call ends. */
  start(ms: number): Deadline {
    return this.watch(new Deadline(), ms);
  }

  /** Forgets a deadline whose call ended. */
  release(deadline: Deadline): void {
    this.unwatch(deadline);
    deadline.dispose();
  }

  /**
   * Fires `item.abort` once `ms` from now has passed (the worker's calls, which need no emitter); `unwatch` it when
   * done.
   */
  watch<T extends Sweepable>(item: T, ms: number): T {
    item.at = performance.now() + ms;
    item.ms = ms;
    if (this.live[item.slot] !== item) {
      item.slot = this.live.length;
      this.live.push(item);
    }
    this.timer ??= this.arm();
    return item;
  }

  /** Stops watching `item`; the last one takes its place. */
  unwatch(item: Sweepable): void {
    const { live } = this;
    const at = item.slot;
    if (live[at] !== item) return;
    const last = live.pop()!;
    if (at < live.length) {
      live[at] = last;
      last.slot = at;
    }
    item.slot = -1;
  }

  /** Stops the timer (at close). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    for (const item of this.live) item.slot = -1;
    this.live.length = 0;
  }

  private arm(): NodeJS.Timeout {
    const timer = setInterval(() => {
      // Nothing pending: stop until the next call, so an idle process does not tick.
      if (!this.live.length) return this.stop();
      const now = performance.now();
      // Over a copy: an abort may end calls, which unwatches them (those are skipped).
      for (const d of [...this.live]) if (now >= d.at && this.live[d.slot] === d) d.abort(this.reasonFor(d.ms));
    }, this.tickMs);
    // Left ref'd on purpose: it runs only while a call is pending, and a pending
    // call on an unref'd child process must still keep the host's loop alive.
    return timer;
  }
}
