/**
 * The one clock everything that waits or expires reads: the host option `clock` (tests advance
 * it), else the real one. `timers(clock)` gives a clock's timers, the global ones where it has
 * none; `unref` keeps a real timer from holding the process open (a test clock's timers hold
 * nothing). Intervals are chains of timeouts, so a test clock fires them as it advances.
 */
/**
 * A source of milliseconds and the timers that wait on it: `Date.now` and the global timers in
 * production, a counter tests advance by hand. Only `now` is required; a clock without the timer
 * methods gets the real timers (so expiry is read from `now` but waited for in real time).
 */
export interface Clock {
  now(): number;
  /** runs `fn` once, `ms` from now; the handle is passed to `clearTimeout` */
  setTimeout?(fn: () => void, ms: number): unknown;
  /** cancels a handle from `setTimeout` (undefined and spent handles are ignored) */
  clearTimeout?(handle: unknown): void;
}

/** A timer's handle, opaque: pass it back to `cancel`. */
export type TimerHandle = unknown;

export interface Timers {
  now(): number;
  /** runs `fn` once after `ms`; `unref`: a real timer does not keep the process alive */
  after(ms: number, fn: () => void, options?: { unref?: boolean }): TimerHandle;
  /** runs `fn` every `ms` until the returned stop function is called */
  every(ms: number, fn: () => void, options?: { unref?: boolean }): () => void;
  /** cancels a handle from `after` (undefined is ignored) */
  cancel(handle: TimerHandle | undefined): void;
}

/** The real clock: Date.now and the global timers. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * The timers of `clock` (default the real clock); the global timers where it has none, unref'd by default when
 * `defaults.unref`.
 */
export function timers(clock: Clock = systemClock, defaults: { unref?: boolean } = {}): Timers {
  const set = clock.setTimeout?.bind(clock);
  const clear = clock.clearTimeout?.bind(clock);
  const after = (ms: number, fn: () => void, options?: { unref?: boolean }): TimerHandle => {
    if (set) return set(fn, ms);
    const timer = setTimeout(fn, ms);
    if (options?.unref ?? defaults.unref) timer.unref();
    return timer;
  };
  const cancel = (handle: TimerHandle | undefined): void => {
    if (handle === undefined) return;
    if (clear) clear(handle);
    else clearTimeout(handle as ReturnType<typeof setTimeout>);
  };
  return {
    now: () => clock.now(),
    after,
    cancel,
    every(ms, fn, options) {
      let stopped = false;
      let handle: TimerHandle;
      const tick = (): void => {
        if (stopped) return;
        handle = after(ms, tick, options);
        fn();
      };
      handle = after(ms, tick, options);
      return () => {
        stopped = true;
        cancel(handle);
      };
    },
  };
}

/** `fn` run once `ms` after the last of a burst of `trigger()` calls (a debounce); `cancel` drops a pending run. */
export function debounced(clock: Clock, ms: number, fn: () => void): { trigger(): void; cancel(): void } {
  const t = timers(clock);
  let pending: TimerHandle | undefined;
  return {
    trigger() {
      t.cancel(pending);
      pending = t.after(ms, () => {
        pending = undefined;
        fn();
      });
    },
    cancel() {
      t.cancel(pending);
      pending = undefined;
    },
  };
}
