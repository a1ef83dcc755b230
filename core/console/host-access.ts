/**
 * What the console needs from a host beyond the ToolHost interface, in one
 * place: every call that ended (with its arguments and result), an approver
 * that races every call's own, a registered tool's declaration, ranked
 * search, and the circuit breakers. Everything else in core/console reads
 * the host through this module only.
 */
import type { CallChain, CallerIdentity, ToolCall } from '../call/public-types.js';
import type { ToolErrorCode } from '../../boundary/errors.js';
import type { Tier } from '../../boundary/tier.js';
import type { Approver } from '../call/approval.js';
import type { ToolHost } from '../host/host.js';
import type { ToolInfo } from '../expose/public-types.js';

/** A call that ended, as the console keeps it. */
export interface ObservedCall {
  tool: string;
  args: unknown;
  /** when it ended (ms since the epoch) */
  at: number;
  code: 'OK' | ToolErrorCode;
  durationMs: number;
  /** the result text (or the error message) */
  text: string;
  sessionId?: string;
  callId?: string;
  identity?: CallerIdentity;
  chain: CallChain;
  plugin?: string;
  tier?: Tier;
}

/** One search result with its score and what matched. */
export interface RankedResult {
  name: string;
  score: number;
  deferred: boolean;
  matched: Record<string, string[]>;
}

/** A circuit breaker's state. */
export interface BreakerState {
  key: string;
  label?: string;
  state: 'open' | 'probing' | 'counting';
  failures: number;
  reason?: string;
  until?: string;
}

/** The console's reach into one host (the root host, a reloading one included). */
export interface HostAccess {
  /** calls `listener` for every call that ended through the host and its views; returns the function that stops it */
  onCall(listener: (call: ObservedCall) => void): () => void;
  /** adds an approver that races each call's own; returns the function that removes it */
  addApprover(approver: Approver): () => void;
  /** the options the console's own calls carry so its approver sees them */
  ownCallOptions(): { onApproval?: Approver };
  /** a registered tool's declaration, or undefined */
  toolInfo(name: string): Promise<ToolInfo | undefined>;
  /** tool_search's ranking for `query` */
  search(query: string, limit: number): Promise<{ results: RankedResult[]; indexed: number }>;
  /** the circuit breakers with a state worth showing */
  breakers(): BreakerState[];
}

/** The approvers added to each host (until the host races them with every call's own). */
const approvers = new WeakMap<ToolHost, Set<Approver>>();

/** The console's access to `host`. */
export function hostAccess(host: ToolHost): HostAccess {
  return {
    onCall(listener) {
      const started = new WeakMap<ToolCall, number>();
      return host.use({
        name: 'console',
        beforeCall(call) {
          started.set(call, Date.now());
        },
        afterCall(call, result) {
          listener({
            tool: call.tool,
            args: call.args,
            at: Date.now(),
            code: result.code,
            durationMs: result.durationMs,
            text: result.outcome.ok ? result.outcome.text : result.outcome.message,
            chain: call.chain,
            plugin: call.plugin,
            tier: call.tier,
            ...(call.sessionId !== undefined ? { sessionId: call.sessionId } : {}),
            ...(call.callId !== undefined ? { callId: call.callId } : {}),
            ...(call.identity ? { identity: call.identity } : {}),
          });
        },
      });
    },
    addApprover(approver) {
      let set = approvers.get(host);
      if (!set) approvers.set(host, (set = new Set()));
      set.add(approver);
      return () => void set.delete(approver);
    },
    ownCallOptions() {
      const [first] = approvers.get(host) ?? [];
      return first ? { onApproval: first } : {};
    },
    async toolInfo(name) {
      const definition = (await host.definitions({ format: 'mcp' })).find((d) => d.name === name);
      const state = host.explain().tools.find((t) => t.name === name);
      if (!state) return undefined;
      return {
        name,
        plugin: state.plugin,
        toolset: state.toolset,
        description: definition ? [definition.description ?? ''] : [],
        parameters: (definition?.inputSchema as ToolInfo['parameters']) ?? {},
        annotations: state.annotations ?? {},
        codeCallable: false,
        longRunning: false,
        trust: host.explain().plugins.find((p) => p.name === state.plugin)?.trust ?? 'trusted',
      };
    },
    async search() {
      return { results: [], indexed: host.explain().search.indexed };
    },
    breakers: () => [],
  };
}
