/**
 * What the console needs from a host beyond the ToolHost interface, in one
 * place: every call that ended (with its arguments and result), an approver
 * that races every call's own, a registered tool's declaration, ranked
 * search, and the circuit breakers (host/inspector.ts). Everything else in
 * core/console reads the host through this module only.
 */
import { inspectorOf, type SearchRanking } from '../host/inspector.js';
import type { Approver } from '../call/approval.js';
import type { BreakerReport, CallRecord } from '../call/public-types.js';
import type { ToolHost } from '../host/host.js';
import type { ToolInfo } from '../expose/public-types.js';

/** The console's reach into one host (the root host, a reloading one included). */
export interface HostAccess {
  /** calls `listener` for every call that ended through the host and its views; returns the function that stops it */
  onCall(listener: (call: CallRecord) => void): () => void;
  /** adds an approver that races each call's own; returns the function that removes it */
  addApprover(approver: Approver): () => void;
  /** a registered tool's declaration, or undefined */
  toolInfo(name: string): ToolInfo | undefined;
  /** tool_search's ranking for `query`, with scores and matched terms */
  search(query: string, limit: number): Promise<SearchRanking>;
  /** the circuit breakers with a state worth showing */
  breakers(): BreakerReport[];
}

/** The console's access to `host`. */
export function hostAccess(host: ToolHost): HostAccess {
  const inspector = inspectorOf(host);
  return {
    onCall(listener) {
      host.on('call', listener);
      return () => void host.off('call', listener);
    },
    addApprover: (approver) => inspector.addApprover(approver),
    toolInfo: (name) => inspector.toolInfo(name),
    search: (query, limit) => inspector.search(query, limit),
    breakers: () => inspector.breakers(),
  };
}
