/**
 * What the console and serve reach of a host beyond the ToolHost interface: a tool as it was declared
 * (description parts with their conditions, schema, examples), tool search with scores and the
 * terms each result matched, the circuit breaker's circuits, approvers that join every call's
 * approval, and the audit line of a request refused before it became a call. Internal: an embedder
 * reaches none of it from the package (the console and serve are the readers).
 * Every surface registers its own; hosts that stand in for another (opening, reloading) register
 * one that asks the host they stand in for.
 */
import type { Approver } from '../call/approval.js';
import type { BreakerReport, RequestRefusal } from '../call/public-types.js';
import type { RankedTool } from '../call/search/search-index.js';
import type { ToolInfo } from '../expose/public-types.js';
import type { ResolvedConfig } from '../config/config.js';
import type { ToolHost } from './tool-host.js';

/** The tools a search found, best first, and how many tools it searched. */
export interface SearchRanking {
  results: Array<RankedTool & { deferred: boolean }>;
  indexed: number;
}

/** A host's inside, as the console reads it. */
export interface HostInspector {
  /** the config this surface reads: the host's, with a view's own defer */
  config(): ResolvedConfig;
  /** the registered tool `name` as its plugin declared it, or undefined */
  toolInfo(name: string): ToolInfo | undefined;
  /** tool search over this surface's exposed tools (the index tool_search uses), with scores and matched terms */
  search(query: string, limit: number): Promise<SearchRanking>;
  /** the breaker's open, probing and counting circuits */
  breakers(): BreakerReport[];
  /**
   * adds an approver every call that needs approval asks beside its own (the first answer wins); returns its removal
   */
  addApprover(approver: Approver): () => void;
  /**
   * Writes the audit line (config `audit`; nothing without it) of a request refused before it
   * became a call: `serve --http` and the console record their 401s, 403s and 429s so.
   */
  recordRefusal(refusal: RequestRefusal): void;
}

const inspectors = new WeakMap<ToolHost, HostInspector>();

/** Makes `inspector` the one `inspectorOf(host)` returns. */
export function registerInspector(host: ToolHost, inspector: HostInspector): void {
  inspectors.set(host, inspector);
}

/** The inspector of a host made by toolshed (any surface, opening or reloading host); throws for any other object. */
export function inspectorOf(host: ToolHost): HostInspector {
  const inspector = inspectors.get(host);
  if (!inspector) throw new TypeError('inspectorOf: not a host made by createToolHost');
  return inspector;
}

/** An inspector that asks whatever host `current()` returns now (a host that stands in for another). */
export function delegatingInspector(current: () => ToolHost): HostInspector {
  return {
    config: () => inspectorOf(current()).config(),
    toolInfo: (name) => inspectorOf(current()).toolInfo(name),
    search: (query, limit) => inspectorOf(current()).search(query, limit),
    breakers: () => inspectorOf(current()).breakers(),
    addApprover: (approver) => inspectorOf(current()).addApprover(approver),
    recordRefusal: (refusal) => inspectorOf(current()).recordRefusal(refusal),
  };
}

/** The config in force in `host`, with defaults (what the deprecated `host.config` shows). */
export function configOf(host: ToolHost): ResolvedConfig {
  return inspectorOf(host).config();
}

/**
 * Writes the audit line of a request refused before it became a call (see `HostInspector.recordRefusal`). A host
 * toolshed did not make (an embedder's own ToolHost given to `serveHttp`) has no audit log: nothing is written.
 */
export function recordRefusal(host: ToolHost, refusal: RequestRefusal): void {
  inspectors.get(host)?.recordRefusal(refusal);
}
