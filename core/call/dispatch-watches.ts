/**
 * The observers of dispatch (call-observer.ts): the audit log, the host's `call` monitor, the
 * OpenTelemetry spans and the circuit breaker. Beyond a call's start and end, dispatch tells their
 * watches of the points the call reaches: the tool known, the tier about to run it (where the
 * breaker may refuse it), the tier's run, a nested call made from it, and the tier's end.
 */
import { runWatched, watchesOf, type CallObserver, type CallWatch } from './call-observer.js';
import type { CallOutcome } from '../../boundary/outcome.js';
import type { Tier } from '../../boundary/tier.js';
import type { ToolRecord } from '../load/types.js';
import type { BreakerVerdict } from './breaker.js';
import type { CallContext } from './chain.js';
import type { ReceivedArguments } from './digests.js';
import type { DispatchOptions } from './public-types.js';

/** A call as dispatch's observers see it when it arrives. */
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

/** A watch over a call through dispatch; each point is told only when the call reaches it. */
export interface DispatchWatch extends CallWatch {
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
}

/** An observer of every call through dispatch. */
export type DispatchObserver = CallObserver<ObservedCall, DispatchWatch>;

/** The watches of one call through dispatch, told together at each point. */
export class CallWatches {
  private constructor(private readonly watches: readonly DispatchWatch[]) {}

  /** The watches `observers` return for `call` (none: undefined, and the call is not watched). */
  static start(observers: readonly DispatchObserver[], call: ObservedCall): CallWatches | undefined {
    const watches = watchesOf(observers, call);
    return watches.length ? new CallWatches(watches) : undefined;
  }

  /** Runs the call inside every watch and tells each how it ended (`runWatched`). */
  run(run: () => Promise<CallOutcome>, crashed: (error: unknown) => CallOutcome): Promise<CallOutcome> {
    return runWatched(this.watches, run, crashed);
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
