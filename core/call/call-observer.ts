/**
 * One way for observers to see a call. An observer is told when a call arrives (`started`); if
 * it wants the call it returns a `CallWatch`, which is told how the call ended. Dispatch tells its
 * list (the audit log, the host's `call` monitor, the OpenTelemetry spans, the circuit breaker) at
 * more points of the call (dispatch-watches.ts); `serve --http`'s metrics are an observer of the
 * same kind, told where serve runs a `tools/call` (metrics.ts).
 *
 * Watches are told in the order their observers are listed when a call starts, and in the reverse
 * order when it ends: the first is outermost, as wrappers would be (the span ends, then the call
 * record is told, then the audit line is written, then the caller gets the outcome). A watch that
 * throws when told of the outcome makes the call throw: the watches outside it are told of that
 * throw, and a host's surface answers its caller with the TOOL_CRASHED outcome (host-failure.ts).
 */
import type { CallOutcome } from '../../boundary/outcome.js';

/** Sees calls: each one it wants, from its arrival to its outcome (`C`: what of a call it reads). */
export interface CallObserver<C, W extends CallWatch = CallWatch> {
  /** a call arrived (before any gate): what watches it, or undefined to let it pass unwatched */
  started(call: C): W | undefined;
}

/** One observer's watch over one call. */
export interface CallWatch {
  /** runs the rest of the call inside this watch (the span's context is active while it runs) */
  within?(run: () => Promise<CallOutcome>): Promise<CallOutcome>;
  /** the call ended with `outcome` */
  settled?(outcome: CallOutcome): void;
  /** the call threw inside the host; `outcome` is what its caller gets instead */
  threw?(error: unknown, outcome: CallOutcome): void;
}

/** The watches `observers` return for `call`, in their order. */
export function watchesOf<C, W extends CallWatch>(observers: readonly CallObserver<C, W>[], call: C): W[] {
  const watches: W[] = [];
  for (const observer of observers) {
    const watch = observer.started(call);
    if (watch) watches.push(watch);
  }
  return watches;
}

/**
 * Runs the call inside every watch and tells each how it ended, innermost first; a throw inside the host is told as
 * the outcome `crashed` makes of it, and thrown on. When no watch wraps the call or wants its end (the breaker's
 * alone: it is told inside dispatch), the call's own promise is returned: no frame is added to the dispatch path.
 */
export function runWatched(
  watches: readonly CallWatch[],
  run: () => Promise<CallOutcome>,
  crashed: (error: unknown) => CallOutcome,
): Promise<CallOutcome> {
  return watches.some(wantsEnd) ? runInside(watches, run, crashed) : run();
}

const wantsEnd = (watch: CallWatch) => Boolean(watch.within || watch.settled || watch.threw);

async function runInside(
  watches: readonly CallWatch[],
  run: () => Promise<CallOutcome>,
  crashed: (error: unknown) => CallOutcome,
): Promise<CallOutcome> {
  let inner = run;
  for (let i = watches.length - 1; i >= 0; i--) {
    const watch = watches[i]!;
    if (watch.within) {
      const next = inner;
      inner = () => watch.within!(next);
    }
  }
  let ended: Ended;
  try {
    ended = { outcome: await inner() };
  } catch (error) {
    ended = { error };
  }
  for (let i = watches.length - 1; i >= 0; i--) ended = tell(watches[i]!, ended, crashed);
  if ('error' in ended) throw ended.error;
  return ended.outcome;
}

/** How a call ended, as the watches outside are told. */
type Ended = { outcome: CallOutcome } | { error: unknown };

/** Tells one watch how the call ended; a throw from the watch is how it ends for the watches outside. */
function tell(watch: CallWatch, ended: Ended, crashed: (error: unknown) => CallOutcome): Ended {
  try {
    if ('outcome' in ended) watch.settled?.(ended.outcome);
    else if (watch.threw) watch.threw(ended.error, crashed(ended.error));
    return ended;
  } catch (error) {
    return { error };
  }
}
