/**
 * What an embedder sees of a call: the options of `dispatch`, the call as hooks and approvers
 * see it, its chain of callers, and the hooks' and approvers' answers. Types only, importing only
 * public types, so the package's declarations stop here (test/package/public-types.test.ts).
 */
import type { CallOutcome } from '../../boundary/outcome.js';
import type { ToolErrorCode } from '../../boundary/errors.js';
import type { LogLevel, ToolAnnotations } from '../../boundary/plugin-api.js';
import type { Tier } from '../../boundary/tier.js';
import type { Elicitor } from '../../boundary/server-requests.js';
import type { CallerIdentity, Identity } from '../../boundary/identity.js';

export type { CallerIdentity, CredentialProvider, CredentialRequest, Identity } from '../../boundary/identity.js';
export type {
  ElicitRequest,
  ElicitResult,
  ElicitValue,
  Elicitor,
  LogLevel,
  Sampler,
  SamplingRequest,
  SamplingResult,
} from '../../boundary/server-requests.js';

/** Per-call options of `dispatch`. */
export interface DispatchOptions {
  signal?: AbortSignal;
  sessionId?: string;
  /**
   * who the call is for (`host.as(identity)` sets it on every call); access, quotas, audit and per-identity credentials
   * follow it
   */
  identity?: Identity;
  /** the model's id for this tool call (e.g. OpenAI's `tool_calls[].id`); hooks and traces see it */
  callId?: string;
  /** decides calls that need approval (config `approve`) for this call, before the view's or host's onApproval */
  onApproval?: Approver;
  /**
   * receives the handler's `ctx.log` lines, and an MCP server's log messages during the call, with their level ('info'
   * unless the source said otherwise)
   */
  onLog?(message: string, level: LogLevel): void;
  /**
   * answers an MCP server's elicitation request made during this call, before the host's
   * `onElicitation`; without either, the request is declined (docs/mcp-servers.md)
   */
  onElicitation?: Elicitor;
  /** receives the handler's `ctx.progress` */
  onProgress?(done: number, total?: number): void;
}

/** One step of a call chain: a running tool that called the next one, and the plugin it belongs to. */
export interface CallHop {
  /** the tool whose handler made the call */
  tool: string;
  /** the plugin that owns that tool */
  plugin: string;
  /** that plugin's trust: an untrusted plugin's permissions are checked for every call below it */
  trust: 'trusted' | 'untrusted';
}

/** The callers of a call, outermost first; empty for a top-level call. */
export type CallChain = readonly CallHop[];

/** A call as hooks and approvers see it. Its arguments have passed the tool's schema. */
export interface ToolCall {
  tool: string;
  args: unknown;
  sessionId?: string;
  /** who the call is for, when the caller said (`host.as`, `serve.auth`); never its token */
  identity?: CallerIdentity;
  /** the model's tool call id, when the caller passed one (`dispatch(…, { callId })`) */
  callId?: string;
  /** the tool whose handler made this call through `ctx.callTool`; undefined for a call from the embedder */
  caller?: CallHop;
  /** every tool between the embedder and this call, outermost first (empty for a direct call) */
  chain: CallChain;
  /** the plugin that owns the tool */
  plugin: string;
  /** where its handler runs */
  tier: Tier;
  /** the tool's declared behaviour hints (MCP tool annotations) */
  annotations: ToolAnnotations;
}

/** What `afterCall` sees: the outcome, its code ('OK' for a success) and how long the call took. */
export interface CallResult {
  outcome: CallOutcome;
  code: 'OK' | ToolErrorCode;
  /** from the end of beforeCall to the end of the tool run (approval waits included) */
  durationMs: number;
}

/**
 * What `beforeCall` may return: nothing (go ahead), a block with the reason the model reads, or replacement arguments.
 */
export type BeforeCallResult = void | undefined | { block: string } | { args: unknown };

/**
 * What `afterCall` may return: nothing (keep the outcome), a replacement outcome, or a string (a successful result
 * text).
 */
export type AfterCallResult = void | undefined | string | CallOutcome;

/**
 * A pair of hooks around every call. Keep them cheap: they run on the host thread.
 * @example
 * host.use({
 * beforeCall: (call) => (call.tool === 'terminal' && call.sessionId === 'guest' ? { block: 'not for guests' } :
 * undefined),
 *   afterCall: (call, result) => console.log(call.tool, result.code, result.durationMs),
 * });
 */
export interface ToolHooks {
  /** a label for HOOK_FAILED messages (default: its position) */
  name?: string;
  beforeCall?(call: ToolCall): BeforeCallResult | Promise<BeforeCallResult>;
  afterCall?(call: ToolCall, result: CallResult): AfterCallResult | Promise<AfterCallResult>;
}

/** Why a call needs approval: its name (or toolset) is in `approve`, or `approve.destructive` and its annotations. */
export type ApprovalReason = 'listed' | 'destructive';

/** A call waiting for approval. */
export interface ApprovalRequest extends ToolCall {
  reason: ApprovalReason;
  /** how long the call waits for an answer (approve.timeoutMs) */
  timeoutMs: number;
  /**
   * aborted when the caller cancels, the wait times out or another approver answered: stop asking (its `reason` is an
   * `ApprovalSettled` saying which)
   */
  signal: AbortSignal;
}

/**
 * Why an approver's signal was aborted (its `reason`): another approver answered first (and how), the wait timed out,
 * or the caller cancelled.
 */
export type ApprovalSettled = { by: 'another approver'; approved: boolean } | { by: 'timeout' } | { by: 'cancelled' };

/**
 * An approver's answer: yes or no, with a reason the model reads when it is no. `abstain: true`
 * with a no says the approver could not ask anyone (a client without a user to ask): while
 * another approver may still answer (the console), its answer is awaited instead.
 */
export type ApprovalDecision = boolean | { approved: boolean; reason?: string; abstain?: boolean };

/**
 * Decides whether a call may run; it may ask a person and take its time (up to `approve.timeoutMs`).
 * @example
 * const host = await createToolHost({ onApproval: async (call) => confirm(`Run
 * ${call.tool}(${JSON.stringify(call.args)})?`) });
 */
export type Approver = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

/**
 * A call that ended, as the host's `call` event tells it: every call through the host and its views,
 * nested calls and refused ones too. It carries the arguments and the result text; whoever shows
 * it decides whether to (the console shows them only when the operator asks).
 */
export interface CallRecord {
  /** unique among this process's calls */
  id: string;
  /** when the call arrived (ISO 8601, UTC) */
  time: string;
  tool: string;
  /** 'OK', or the failure's code */
  code: 'OK' | ToolErrorCode;
  /** from the call's arrival to its outcome, approval waits included */
  durationMs: number;
  sessionId?: string;
  /** the model's tool call id, when the caller gave one */
  callId?: string;
  /** who the call was for: subject and issuer, never a token */
  identity?: { subject: string; issuer?: string };
  /** the access rule that identity fell under, when there are rules */
  rule?: string;
  /** the tools whose handlers made this call, outermost first (empty for a call from outside) */
  chain: Array<{ tool: string; plugin: string }>;
  /** the plugin that owns the tool and where its handler runs, when the tool is known */
  plugin?: string;
  tier?: Tier;
  /** the arguments as received (parsed), when they could be read */
  args?: unknown;
  /** the text the caller got: the result, or the error envelope */
  result: string;
}

/**
 * One circuit of the circuit breaker (`limits.breaker`), as explain and the console show it: a tool,
 * a plugin or an MCP server (or one session's of them) that crashed or timed out.
 */
export interface BreakerReport {
  /** `tool:NAME`, `plugin:NAME`, `session:…:tool:NAME`, … */
  key: string;
  /**
   * `open`: out of service until `until`; `half-open`: the cool-down is over and the next call is
   * the probe; `probing`: that probe is running; `counting`: closed, with failures in the window
   */
  state: 'open' | 'half-open' | 'probing' | 'counting';
  /**
   * crashes and timeouts in the window since it last opened or closed (an open circuit's reason says how many opened
   * it)
   */
  failures: number;
  /** why it opened */
  reason?: string;
  /** when an open circuit lets a probe call through (ISO 8601) */
  until?: string;
}

/** What explain shows of the audit log (config `audit`). */
export interface AuditReport {
  /** 'stdout', 'stderr' or the file's absolute path */
  to: string;
  /** lines written so far */
  written: number;
  /** lines that could not be written (the sink failed or could not keep up); calls went on */
  dropped: number;
  /** why the sink stopped writing, once it failed */
  failure?: string;
}

/** A request refused before it became a call: `serve --http` and the console record their 401s, 403s and 429s so. */
export interface RequestRefusal {
  /** the HTTP status it was answered with (401, 403, 429…) */
  status: number;
  /** why, in words (never a token) */
  reason: string;
  /** who sent it: the client's address (behind trusted proxies, the one they name) */
  client?: string;
  /** whom its token named, when it carried a valid one */
  identity?: CallerIdentity;
  /** the session it named */
  sessionId?: string;
}

/** One session's line in explain. */
export interface SessionReport {
  /** the session id; null for the default session (calls without one) */
  id: string | null;
  /** loaded tools, in load order */
  tools: string[];
  /** milliseconds since the session was last used */
  idleMs: number;
}

/** What explain shows of tool search. */
export interface SearchReport {
  /** exposed tools that are deferred */
  deferred: number;
  /** Anthropic's native search in the anthropic format, or false */
  native: false | 'bm25' | 'regex';
  /** tools in the index (as of the last search; 0 before the first) */
  indexed: number;
  /** live sessions and what each loaded */
  sessions: SessionReport[];
  /** calls to a deferred tool that the calling session had not loaded (they still run), by tool */
  callsNotLoaded: Record<string, number>;
  /** exposed tools `search.exclude` keeps out of tool_search (still callable by name), sorted */
  excluded: string[];
  /** `search.exclude` entries that matched no exposed tool */
  excludeUnmatched: string[];
  /** the embedder's vectors, when `search.embedder` is set */
  embeddings?: EmbeddingsReport;
}

/** `explain().search.embeddings`: how far tool vectors are, and the embedder's last failure. */
export interface EmbeddingsReport {
  /** the embedder's `model` */
  model: string;
  /** tools with a vector (searches rank these by vector too) */
  vectors: number;
  /** tools still waiting for theirs (ranked lexically only until then) */
  pending: number;
  /** the last failure, until the embedder answers again: searches meanwhile rank lexically */
  failed?: string;
}
