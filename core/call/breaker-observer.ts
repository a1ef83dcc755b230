/**
 * The circuit breaker as an observer of calls: before a plugin's tier runs a call it asks the
 * breaker to let it through (refused while a circuit is open, or while its probe runs), and when
 * the tier ends it books how the call ended (breaker.ts).
 */
import { breakerKeys, type BreakerVerdict, type CircuitBreaker } from './breaker.js';
import type { DispatchObserver, DispatchWatch } from './dispatch-watches.js';
import type { CallOutcome } from '../../boundary/outcome.js';
import type { ToolRecord } from '../load/types.js';

/** Watches every call for `breaker`. */
export function breakerObserver(breaker: CircuitBreaker): DispatchObserver {
  return { started: () => new BreakerWatch(breaker) };
}

/** One call's admission and settlement. */
class BreakerWatch implements DispatchWatch {
  /** the admission's ticket; undefined when no circuit existed (the breaker was idle) as the tier started */
  private ticket: { settle(verdict: BreakerVerdict): void } | undefined;

  constructor(private readonly breaker: CircuitBreaker) {}

  admit(record: ToolRecord, sessionId: string | undefined): string | undefined {
    // With no circuit at all, nothing can refuse the call: its keys are built only if it fails.
    if (this.breaker.idle) return undefined;
    const keys = breakerKeys(record.name, record.plugin.source.name, sessionId);
    const ticket = this.breaker.admit(keys, record.name, sessionId);
    if ('refused' in ticket) return ticket.refused;
    this.ticket = ticket;
    return undefined;
  }

  ran(record: ToolRecord, outcome: CallOutcome, verdict: BreakerVerdict, sessionId: string | undefined): void {
    if (this.ticket) return this.ticket.settle(verdict);
    if (outcome.ok) return;
    const keys = breakerKeys(record.name, record.plugin.source.name, sessionId);
    this.breaker.settleUnticketed(keys, record.name, verdict, sessionId);
  }
}
