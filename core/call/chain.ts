/**
 * Who a call comes from. Every call carries its chain: the tools whose
 * handlers called it through `ctx.callTool`, outermost first. A call from
 * the embedder, the model, the CLI or an MCP client has an empty chain.
 * Dispatch checks each untrusted plugin in the chain at every hop, bounds
 * its length (`limits.maxCallDepth`), and refuses a call back into a plugin
 * whose workers are all busy (it would wait for itself).
 */
import type { ToolRecord } from '../load/types.js';
import type { CallOrigin } from '../runners/runner.js';
import type { CallChain, CallHop } from './public-types.js';
import type { StateScope } from './plugin-state.js';

export type { CallChain, CallHop } from './public-types.js';

/** Per-call context dispatch carries through nested calls (hooks read `chain` as the call's callers). */
export interface CallContext {
  readonly chain: CallChain;
  /** the records of the chain's tools, parallel to `chain` (internal: permission and deadlock checks) */
  readonly records: readonly ToolRecord[];
  /** the running call and worker that made this call, when its tier says (lets the pool run it inline) */
  readonly origin?: CallOrigin;
  /** when the caller began waiting on this call (reentry.ts orders simultaneous calls back by it) */
  readonly waitSeq?: number;
  /** where ctx.session lives: the caller's, so a nested call shares its session's (or its own call's) state */
  readonly state?: StateScope;
}

/** The context of a call made by the embedder, the model or a client. */
export const TOP_LEVEL: CallContext = Object.freeze({ chain: Object.freeze([]), records: Object.freeze([]) });

/** The context of a call made through `ctx.callTool` by the running tool `caller`. */
export function nestedContext(
  context: CallContext,
  caller: ToolRecord,
  origin?: CallOrigin,
  waitSeq?: number,
): CallContext {
  const hop: CallHop = { tool: caller.name, plugin: caller.plugin.source.name, trust: caller.plugin.source.trust };
  const nested: CallContext = {
    chain: [...context.chain, hop],
    records: [...context.records, caller],
    ...(origin ? { origin } : {}),
    ...(waitSeq !== undefined ? { waitSeq } : {}),
  };
  return context.state ? { ...nested, state: context.state } : nested;
}

/** The chain as the model reads it: `a (plugin-a) → b (plugin-b) → target`. */
export function describeChain(context: CallContext, target: string): string {
  return [...context.chain.map((hop) => `${hop.tool} (${hop.plugin})`), target].join(' → ');
}
