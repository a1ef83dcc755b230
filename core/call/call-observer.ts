/**
 * One way for observers to see a call. Dispatch holds a list of `CallObserver`s (the audit log,
 * the host's `call` monitor, the OpenTelemetry spans, the circuit breaker) and tells each, when a
 * call arrives, before any gate; an observer that wants the call returns a `CallWatch`, which
 * dispatch tells at each point of the call it reaches. `serve --http`'s metrics are an observer of
 * the same kind, told where serve runs a `tools/call`.
 *
 * Watches are told in the order their observers are listed when a call starts, and in the reverse
 * order when it ends: the first is outermost, as wrappers would be (the span ends, then the call
 * record is told, then the audit line is written, then the caller gets the outcome). A watch that
 * throws when told of the outcome makes the call throw: the watches outside it are told of that
 * throw, and a host's surface answers its caller with the TOOL_CRASHED outcome (`hostFailure`).
 */
import type { CallOutcome } from '../../boundary/outcome.js';
import type { Tier } from '../../boundary/tier.js';
import type { ToolRecord } from '../load/types.js';
import type { BreakerVerdict } from './breaker.js';
import type { CallContext } from './chain.js';
import type { ReceivedArguments } from './digests.js';
import type { DispatchOptions } from './public-types.js';

/** A call as its observers see it when it arrives. */
export interface ObservedCall {
  tool: string;
  /** the arguments as received, read once (the audit log, the monitor and the trace share them) */
  args: () => ReceivedArguments;
  options: DispatchOptions;
  /** who is calling: the chain of tools whose handlers made it (empty for a call from outside) */
  context: CallContext;
  /** the tool's plugin and tier, when the registry knows the tool */
  owner?: { plugin: string; tier: Tier };
  /** the access rule its identity falls under */
  rule?: string;
}

/** Sees calls: each one it wants, from its arrival to its outcome (`C`: what of a call it reads). */
export interface CallObserver<C = ObservedCall> {
  /** a call arrived (before any gate): what watches it, or undefined to let it pass unwatched */
  started(call: C): CallWatch | undefined;
}

/** One observer's watch over one call; each point is told only when the call reaches it. */
export interface CallWatch {
  /** runs the rest of the call inside this watch (the span's context is active while it runs) */
  within?(run: () => Promise<CallOutcome>): Promise<CallOutcome>;
  /** the tool is known and exposed */
  known?(record: ToolRecord): void;
  /** the plugin's tier is about to run the call: a reason refuses it there, before any worker starts */
  admit?(record: ToolRecord, sessionId: string | undefined): string | undefined;
  /** runs the tier's part of the call inside this watch */
  inTier?<T>(record: ToolRecord, run: () => Promise<T>): Promise<T>;
  /** the context a nested call made by this call's handler carries */
  adopt?(nested: CallContext): CallContext;
  /** the tier ended: its outcome, and how the breaker counts it */
  ran?(record: ToolRecord, outcome: CallOutcome, verdict: BreakerVerdict, sessionId: string | undefined): void;
  /** the call ended with `outcome` */
  settled?(outcome: CallOutcome): void;
  /** the call threw inside the host; `outcome` is what its caller gets instead */
  threw?(error: unknown, outcome: CallOutcome): void;
}

/** The watches of one call, told together at each point. */
export class CallWatches {
  private constructor(private readonly watches: readonly CallWatch[]) {}

  /** The watches `observers` return for `call` (none: undefined, and the call is not watched). */
  static start<C>(observers: readonly CallObserver<C>[], call: C): CallWatches | undefined {
    const watches: CallWatch[] = [];
    for (const observer of observers) {
      const watch = observer.started(call);
      if (watch) watches.push(watch);
    }
    return watches.length ? new CallWatches(watches) : undefined;
  }

  /**
   * Runs the call inside every watch and tells each how it ended, innermost first; a throw inside the host is told as
   * the outcome `crashed` makes of it, and thrown on.
   */
  async run(run: () => Promise<CallOutcome>, crashed: (error: unknown) => CallOutcome): Promise<CallOutcome> {
    let inner = run;
    for (let i = this.watches.length - 1; i >= 0; i--) {
      const watch = this.watches[i]!;
      if (watch.within) {
        const next = inner;
        inner = () => watch.within!(next);
      }
    }
    let ended: { outcome: CallOutcome } | { error: unknown };
    try {
      ended = { outcome: await inner() };
    } catch (error) {
      ended = { error };
    }
    for (let i = this.watches.length - 1; i >= 0; i--) ended = tell(this.watches[i]!, ended, crashed);
    if ('error' in ended) throw ended.error;
    return ended.outcome;
  }

  known(record: ToolRecord): void {
    for (const watch of this.watches) watch.known?.(record);
  }

  /** The first refusal a watch gives, asking each in order until one refuses. */
  admit(record: ToolRecord, sessionId: string | undefined): string | undefined {
    for (const watch of this.watches) {
      const refused = watch.admit?.(record, sessionId);
      if (refused !== undefined) return refused;
    }
    return undefined;
  }

  inTier<T>(record: ToolRecord, run: () => Promise<T>): Promise<T> {
    let inner = run;
    for (let i = this.watches.length - 1; i >= 0; i--) {
      const watch = this.watches[i]!;
      if (watch.inTier) {
        const next = inner;
        inner = () => watch.inTier!(record, next);
      }
    }
    return inner();
  }

  adopt(nested: CallContext): CallContext {
    let context = nested;
    for (const watch of this.watches) context = watch.adopt?.(context) ?? context;
    return context;
  }

  ran(record: ToolRecord, outcome: CallOutcome, verdict: BreakerVerdict, sessionId: string | undefined): void {
    for (const watch of this.watches) watch.ran?.(record, outcome, verdict, sessionId);
  }
}

/** Tells one watch how the call ended; a throw from the watch is how it ends for the watches outside. */
function tell(
  watch: CallWatch,
  ended: { outcome: CallOutcome } | { error: unknown },
  crashed: (error: unknown) => CallOutcome,
): { outcome: CallOutcome } | { error: unknown } {
  try {
    if ('outcome' in ended) watch.settled?.(ended.outcome);
    else if (watch.threw) watch.threw(ended.error, crashed(ended.error));
    return ended;
  } catch (error) {
    return { error };
  }
}
