/**
 * The console as an approver: a call held for approval (config `approve`),
 * from any client, waits in this list until the operator answers it
 * (`POST api/approvals/ID`), another approver answers first (the call's own:
 * MCP elicitation, a callback), it times out, or its caller cancels it. The
 * list tells the event stream when a call is held and when it is settled, and
 * by whom.
 */
import { randomUUID } from 'node:crypto';
import { shownChain, shownIdentity } from './calls.js';
import type { PendingApproval, Settled } from './api-types.js';
import type { ApprovalDecision, ApprovalSettled, Approver } from '../call/approval.js';

/** What answering a held call came to. */
export type Answer = 'settled' | 'unknown' | 'conflict';

/** What the list tells its listener. */
export interface ApprovalListener {
  held(approval: PendingApproval): void;
  settled(settled: Settled): void;
}

/**
 * Ids of settled calls remembered, so a late answer is told it lost (409) rather than that the call never was (404).
 */
const REMEMBERED = 1000;

/** Calls waiting for the console's answer. */
export class PendingApprovals {
  private readonly pending = new Map<string, { approval: PendingApproval; decide(decision: ApprovalDecision): void }>();
  private readonly settledIds = new Set<string>();

  constructor(private readonly listener: ApprovalListener) {}

  /** The approver to add to the host: each call it is asked about waits here. */
  readonly approver: Approver = (request) =>
    new Promise<ApprovalDecision>((resolve) => {
      const id = randomUUID();
      const approval: PendingApproval = {
        id,
        tool: request.tool,
        args: request.args,
        reason: request.reason,
        heldAt: new Date().toISOString(),
        timeoutMs: request.timeoutMs,
        ...(request.sessionId !== undefined ? { sessionId: request.sessionId } : {}),
        ...(request.identity ? { identity: shownIdentity(request.identity) } : {}),
        chain: shownChain(request.chain),
      };
      const onAbort = () => {
        if (!this.pending.has(id)) return;
        // The wait ended without the console: another approver answered, it timed out, or the caller gave up.
        const settled = request.signal.reason as ApprovalSettled | undefined;
        if (settled?.by === 'another approver') this.finish(id, { id, approved: settled.approved, by: 'caller' });
        else this.finish(id, { id, approved: false, by: settled?.by === 'timeout' ? 'timeout' : 'cancelled' });
        resolve({ approved: false, reason: 'the console did not answer' });
      };
      this.pending.set(id, {
        approval,
        decide: (decision) => {
          request.signal.removeEventListener('abort', onAbort);
          resolve(decision);
        },
      });
      request.signal.addEventListener('abort', onAbort, { once: true });
      this.listener.held(approval);
      if (request.signal.aborted) onAbort();
    });

  /** The calls held now, oldest first. */
  list(): PendingApproval[] {
    return [...this.pending.values()].map((entry) => entry.approval);
  }

  /** The operator's answer to held call `id`. */
  answer(id: string, approved: boolean, reason?: string): Answer {
    const entry = this.pending.get(id);
    if (!entry) return this.settledIds.has(id) ? 'conflict' : 'unknown';
    this.finish(id, { id, approved, by: 'console', ...(reason !== undefined ? { reason } : {}) });
    entry.decide({ approved, ...(reason !== undefined ? { reason } : {}) });
    return 'settled';
  }

  /** Refuses every held call (the console is closing). */
  close(): void {
    for (const id of [...this.pending.keys()]) this.answer(id, false, 'the console closed');
  }

  private finish(id: string, settled: Settled): void {
    this.pending.delete(id);
    this.settledIds.add(id);
    if (this.settledIds.size > REMEMBERED) this.settledIds.delete(this.settledIds.values().next().value!);
    this.listener.settled(settled);
  }
}
