/**
 * The console API's answers and events, as JSON (docs/console.md, "API"): the types the server builds them with
 * and the page (console/src) reads them with, so a drift between the two is a type error. Types only, built
 * from the host's public types; the page imports this file with `import type` alone (.dependency-cruiser.cjs).
 */
import type { ToolAnnotations, JsonSchema, LogLevel } from '../../boundary/plugin-api.js';
import type { CallOutcome } from '../../boundary/outcome.js';
import type { ApprovalReason, BreakerReport, CallRecord } from '../call/public-types.js';
import type { Enforcement, HostReport, PluginReport, ToolReport } from '../explain/public-types.js';
import type { DefinitionFormat } from '../providers/types.js';

// The host's own types the page names.
export type { DefinitionFormat, PluginReport };

/** The error envelope every failed API answer carries. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** Who a call or held call is for, as the console shows it: subject and issuer only (never claims or scopes). */
export interface ShownIdentity {
  subject: string;
  issuer?: string;
}

/** A hop of a nested call: which tool of which plugin called. */
export interface ChainLink {
  tool: string;
  plugin: string;
}

/** What is enforced of one of a plugin's permissions, or the words saying nothing is. */
export type EnforcedPermission = Enforcement['fs' | 'network' | 'env'];

/** How the console is served: beside MCP (`serve --http --ui`) or on its own (`toolshed ui`). */
export interface Serving {
  mcp: boolean;
  transport?: 'http';
  stateless?: boolean;
}

/** One tool's line in the overview, with its plugin's tier and trust. */
export interface ToolLine
  extends Pick<ToolReport, 'name' | 'plugin' | 'toolset' | 'exposed' | 'layer' | 'reason' | 'approval' | 'annotations'>,
    Pick<PluginReport, 'tier' | 'trust'> {
  deferred?: true;
}

/** The layers' counts, registered → selected → available → exposed, and the deferred among the exposed. */
export type Funnel = HostReport['counts'] & { deferred: number };

/** `GET api/overview`. */
export interface Overview
  extends Pick<
    HostReport,
    | 'version'
    | 'config'
    | 'startupMs'
    | 'evaluated'
    | 'plugins'
    | 'toolsets'
    | 'conflicts'
    | 'warnings'
    | 'protection'
    | 'audit'
    | 'search'
  > {
  serving: Serving;
  identity?: ShownIdentity;
  funnel: Funnel;
  tools: ToolLine[];
}

/** A part of a tool's description, with the tools it depends on and whether the model reads it now. */
export interface MarkedPart {
  text: string;
  kind: 'plain' | 'ifAvailable' | 'ifMissing';
  tools?: string[];
  shown: boolean;
}

/** `GET api/tools/NAME`. */
export interface ToolDetail {
  state: ToolReport;
  plugin: { name: string; permissions?: PluginReport['permissions'] } & Pick<PluginReport, 'tier' | 'trust'>;
  title?: string;
  annotations: Readonly<ToolAnnotations>;
  parameters: Readonly<JsonSchema>;
  outputSchema?: Readonly<JsonSchema>;
  examples?: readonly unknown[];
  description: { parts: MarkedPart[]; resolved: string };
  /** the tool's definition in each format, as the model gets it now; null while it is not listed (hidden, deferred) */
  definitions: null | { [format in DefinitionFormat]?: object | null };
}

/** `POST api/call`. */
export interface CallAnswer {
  outcome: CallOutcome;
  durationMs: number;
  callId: string;
}

/** One call as the API sends it (docs/console.md#api): the host's record, with the size of its result. */
export interface CallEntry extends Omit<CallRecord, 'result' | 'rule'> {
  resultChars: number;
  result?: string;
  /** the result or the arguments were cut at KEPT_PAYLOAD_CHARS (then `args` is the start of their JSON, a string) */
  truncated?: Array<'args' | 'result'>;
}

/** A held call as the API sends it; its arguments always (the operator must see what they approve). */
export interface PendingApproval {
  id: string;
  tool: string;
  args: unknown;
  reason: ApprovalReason;
  heldAt: string;
  timeoutMs: number;
  sessionId?: string;
  identity?: ShownIdentity;
  chain: ChainLink[];
}

/** How a held call was settled (the `settled` event). */
export interface Settled {
  id: string;
  approved: boolean;
  by: 'console' | 'caller' | 'timeout' | 'cancelled';
  reason?: string;
}

/** A served session as the API sends it: with the tools its searches loaded. */
export interface SessionLine {
  id: string;
  identity?: ShownIdentity;
  client?: string;
  openedAt?: string;
  lastSeen: string;
  loaded: string[];
}

/** `GET api/sessions`. */
export interface SessionsAnswer {
  serving: boolean;
  sessions: SessionLine[];
  breakers: BreakerReport[];
}

/** One search result: its score, whether it is deferred, and which fields each query word matched. */
export interface SearchResult {
  name: string;
  score: number;
  deferred: boolean;
  matched: Record<string, string[]>;
  /** words drawn from the best results that it matched too */
  related?: string[];
}

/** `POST api/search`. */
export interface SearchAnswer {
  results: SearchResult[];
  indexed: number;
}

/** A change of the host: a check flipping, a plugin reloaded, a server going away, a definition changed. */
export interface Change {
  kind: 'tool' | 'plugin' | 'server' | 'definition';
  name: string;
  text: string;
  from?: string;
  to?: string;
}

/** The stream's first event (`hello`). */
export interface Hello {
  generation: number;
  calls: CallEntry[];
  approvals: PendingApproval[];
}

/** The `change` event: the host's new generation and what changed. */
export interface ChangeEvent {
  generation: number;
  at: string;
  changes: Change[];
}

/** The `log` event: a plugin's log line. */
export interface LogEvent {
  at: string;
  plugin: string;
  tool?: string;
  level: LogLevel;
  message: string;
}

/** The `warning` event. */
export interface WarningEvent {
  at: string;
  message: string;
}
