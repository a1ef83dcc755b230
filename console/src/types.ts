/**
 * The shapes of the console API's answers and events, as the page reads them (docs/console.md,
 * "## API"). Everything in them comes from the server, and much of it from plugins, MCP servers
 * and the model: the page renders every string as text.
 */

/** Who a call or the console works as (serve.auth). */
export interface Identity {
  subject: string;
  issuer?: string;
}

/** A hop of a nested call: which tool of which plugin called. */
export interface ChainLink {
  tool: string;
  plugin: string;
}

/** The error envelope every failed API answer carries. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** What is enforced of one of a plugin's permissions, or the words saying nothing is. */
export type EnforcedPermission = string | { by: string; how: string; [key: string]: unknown };

/** A plugin's permissions: requested, granted by config, their effective set, and what is enforced. */
export interface PluginPermissions {
  requested: Record<string, unknown>;
  granted: Record<string, unknown>;
  effective: Record<string, unknown>;
  enforced: { fs: EnforcedPermission; network: EnforcedPermission; env: EnforcedPermission; note?: string };
  unmatched?: string[];
}

/** One plugin's line of explain's report. */
export interface PluginReport {
  name: string;
  specifier: string;
  status: 'loaded' | 'failed';
  loadMs: number;
  version?: string;
  builtin?: boolean;
  trust?: string;
  tier?: string;
  tools?: number;
  permissions?: PluginPermissions;
  protections?: Record<string, unknown>;
  mcp?: { state?: string; reason?: string; [key: string]: unknown };
  error?: { code: string; message: string };
}

/** One registered tool in the overview. */
export interface ToolLine {
  name: string;
  plugin: string;
  toolset: string;
  exposed: boolean;
  deferred?: boolean;
  layer?: string;
  reason?: string;
  approval?: string;
  tier?: string;
  trust?: string;
}

/** The layers' counts, registered → selected → available → exposed, and the deferred among the exposed. */
export interface Funnel {
  registered: number;
  selected: number;
  available: number;
  exposed: number;
  deferred: number;
}

/** `GET api/overview`. */
export interface Overview {
  version: string;
  config: { file: string | null; dir: string; root: string };
  startupMs: number;
  evaluated: boolean;
  serving: { mcp: boolean; transport?: string; stateless?: boolean };
  identity?: Identity;
  funnel: Funnel;
  plugins: PluginReport[];
  tools: ToolLine[];
  warnings: string[];
  protection?: { notInForce?: string[] };
}

/** A part of a tool's description, with the tools it depends on and whether the model reads it now. */
export interface DescriptionPart {
  text: string;
  kind: 'plain' | 'ifAvailable' | 'ifMissing';
  tools?: string[];
  shown: boolean;
}

/** The provider formats the console shows a tool's definition in. */
export const FORMATS = ['openai', 'responses', 'anthropic', 'gemini', 'mcp'] as const;

/** One of {@link FORMATS}. */
export type Format = (typeof FORMATS)[number];

/** `GET api/tools/NAME`. */
export interface ToolDetail {
  state: {
    name: string;
    plugin: string;
    toolset: string;
    exposed: boolean;
    layer?: string;
    reason?: string;
    warnings?: string[];
    deferred?: boolean;
  };
  plugin: { name: string; tier?: string; trust?: string; permissions?: PluginPermissions };
  title?: string;
  annotations?: Record<string, unknown>;
  parameters: JsonSchema;
  outputSchema?: JsonSchema;
  examples?: unknown[];
  description: { parts: DescriptionPart[]; resolved: string };
  definitions: null | Record<Format, unknown>;
}

/** A JSON Schema as a tool declares it (the page reads only a few keywords). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema | JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  [key: string]: unknown;
}

/** A call's outcome: the result text, or the error envelope's code and message. */
export type Outcome = { ok: true; text: string } | { ok: false; code: string; message: string };

/** `POST api/call`. */
export interface CallAnswer {
  outcome: Outcome;
  durationMs: number;
  callId?: string;
}

/** A call that ended, as the live list shows it. */
export interface CallEntry {
  id: string;
  time: string;
  tool: string;
  code: string;
  durationMs: number;
  sessionId?: string;
  callId?: string;
  identity?: Identity;
  chain: ChainLink[];
  plugin?: string;
  tier?: string;
  resultChars: number;
  args?: unknown;
  result?: string;
}

/** A call held for approval. */
export interface PendingApproval {
  id: string;
  tool: string;
  args: unknown;
  reason: string;
  heldAt: string;
  timeoutMs: number;
  sessionId?: string;
  identity?: Identity;
  chain: ChainLink[];
}

/** The `settled` event: a held call was answered. */
export interface Settled {
  id: string;
  approved: boolean;
  by: string;
  reason?: string;
}

/** A circuit breaker's state. */
export interface BreakerReport {
  key: string;
  label?: string;
  state: string;
  failures: number;
  reason?: string;
  until?: string;
}

/** `GET api/sessions`. */
export interface SessionsAnswer {
  serving: boolean;
  sessions: Array<{
    id: string;
    identity?: Identity;
    client?: string;
    openedAt?: string;
    lastSeen?: string;
    loaded: string[];
  }>;
  breakers: BreakerReport[];
}

/** One search result: its score, whether it is deferred, and which fields each term matched. */
export interface SearchResult {
  name: string;
  score: number;
  deferred: boolean;
  matched: Record<string, string[]>;
}

/** `POST api/search`. */
export interface SearchAnswer {
  results: SearchResult[];
  indexed: number;
}

/** A change of the host: a check flipping, a plugin reloaded, a server going away, a definition changed. */
export interface Change {
  kind: string;
  name: string;
  text: string;
  from?: string;
  to?: string;
}

/** An entry of the Changes panel: a change, a plugin's log line or a warning, as it came. */
export type HostNews =
  | { type: 'change'; at: string; change: Change }
  | { type: 'log'; at: string; plugin: string; tool?: string; level: string; message: string }
  | { type: 'warning'; at: string; message: string };

/** The stream's first event. */
export interface Hello {
  generation: number;
  calls: CallEntry[];
  approvals: PendingApproval[];
}
