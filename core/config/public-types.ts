/**
 * The config as users write it (`ToolshedConfig`, checked against config.schema.json) and as a
 * running host holds it with every default applied (`ResolvedConfig`, `host.config`). Types only,
 * importing only public types, so the package's declarations stop here.
 */
import type { CodeLimits, Grant, Permissions, ToolLimits } from '../../boundary/plugin-api.js';
import type { ResourceLimits, ResourceSettings } from '../../boundary/launch/resources.js';

/** A plugin entry as written in the config. */
export type PluginEntry =
  | string
  | {
      package: string;
      trust?: 'trusted' | 'untrusted';
      grant?: Grant;
      pool?: 'shared' | 'own';
      options?: Record<string, unknown>;
      resources?: ResourceSettings;
    };

/**
 * An MCP server entry: the Claude Desktop / Cursor shape (`command`, `args`,
 * `env`, `cwd` for stdio; `url`, `headers` for Streamable HTTP) plus
 * toolshed's own keys (docs/mcp-servers.md).
 */
export interface McpServerEntry {
  type?: 'stdio' | 'http' | 'streamable-http';
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  /** Streamable HTTP: how often the server is probed, connected or not (docs/mcp-servers.md); default 1000 */
  probeIntervalMs?: number;
  trust?: 'trusted' | 'untrusted';
  grant?: Omit<Permissions, 'folders'>;
  toolset?: string;
  prefix?: string | false;
  timeoutMs?: number;
  enabled?: boolean;
  /** its tools are callable from execute_code */
  codeCallable?: boolean;
  /** @deprecated the older name of `codeCallable`, accepted until toolshed 2 */
  sandbox?: boolean;
  /** limits on its processes, memory and file size (stdio, untrusted) over the top-level `resources` */
  resources?: ResourceSettings;
  /** limits on what the server lists (docs/mcp-servers.md) */
  listing?: McpListingLimits;
  /** what a changed tool definition does (default: the config's top-level `definitionChanges`) */
  definitionChanges?: DefinitionChanges;
  /**
   * The MCP revision toolshed speaks to it: 'auto' (default) asks with `server/discover` and falls back to
   * the 2025 `initialize` handshake; 'legacy' skips the probe; '2026-07-28' insists on that revision.
   */
  protocol?: McpProtocolChoice;
  /**
   * how toolshed logs in to it with OAuth (`toolshed auth NAME`); without it, discovery and dynamic registration decide
   * (docs/mcp-servers.md#oauth)
   */
  oauth?: McpOAuthSettings;
  /**
   * Whose credentials its calls carry: the operator's (default: `headers`, or the tokens `toolshed auth`
   * stored), or each caller's own: their token exchanged for one the server accepts (RFC 8693), or
   * one the embedder's credentials provider supplies (docs/security.md#acting-for-the-caller).
   */
  credentials?: McpCredentials;
}

/** `mcpServers.<name>.oauth`: the OAuth client toolshed is to this server. */
export interface McpOAuthSettings {
  /**
   * a client id registered with its authorization server (default: a client ID metadata document, else dynamic
   * registration)
   */
  clientId?: string;
  /** the environment variable holding that client's secret, for a confidential client */
  clientSecretEnv?: string;
  /** the URL of toolshed's client ID metadata document, when the operator publishes one */
  clientMetadataUrl?: string;
  /** scopes to ask for (default: what the server's metadata says it supports) */
  scopes?: string[];
  /**
   * the loopback port `toolshed auth` waits for the redirect on (default: a free one); a client registered with a fixed
   * redirect URI needs it
   */
  redirectPort?: number;
}

/**
 * `mcpServers.<name>.credentials`: 'operator' (default), or per identity by exchange or from the embedder's provider.
 */
export type McpCredentials =
  | 'operator'
  | 'provider'
  | {
      /**
       * RFC 8693: the caller's token is exchanged at this token endpoint (https, or http to localhost). Default: the
       * one
       * `serve.auth.issuer`'s metadata names; with neither the entry is invalid. Never the one the MCP server's
       * metadata names.
       */
      exchange: {
        tokenEndpoint?: string;
        audience?: string;
        scopes?: string[];
        clientId?: string;
        clientSecretEnv?: string;
      };
    };

/** `serve.auth`: `toolshed serve --http` as an OAuth resource server (docs/security.md#serving-many-people). */
export interface ServeAuthConfig {
  /** the authorization server's issuer URL; its metadata names the JWKS (unless `jwksUri` does) */
  issuer: string;
  /**
   * what tokens must be issued for (`aud`), one of these (default: this server's resource identifier: its public URL,
   * else the URL it listens on)
   */
  audience?: string | string[];
  /** scopes every request's token must carry (default none) */
  scopes?: string[];
  /** where the issuer's signing keys are (default: from its metadata) */
  jwksUri?: string;
  /** the JWS algorithms accepted (default RS256, PS256, ES256, EdDSA) */
  algorithms?: string[];
  /** seconds of clock difference tolerated on `exp` and `nbf` (default 5) */
  clockToleranceSec?: number;
  /** the claim that names the caller (default 'sub') */
  subjectClaim?: string;
}

/**
 * One `access` rule: who it is for, and the view, approvals and quotas they get. The first rule that matches decides.
 */
export interface AccessRule {
  /** a label for explain, the audit log and refusals (default: `rule N`, its position from 1) */
  name?: string;
  /** who it is for: every condition given must hold (absent: everyone) */
  when?: {
    /** the identity's subject, one of these (`*` patterns allowed) */
    subject?: string | string[];
    /** scopes the identity must all have */
    scopes?: string[];
    /**
     * claims that must have these values: a value, or a list of which one must match (array claims match when they
     * contain it)
     */
    claims?: Record<string, string | number | boolean | Array<string | number | boolean>>;
  };
  /** toolsets or tools this identity sees (default: everything the host exposes) */
  enable?: string[];
  /** toolsets or tools removed, last */
  disable?: string[];
  /** what is deferred for it, as config `defer` (default: the host's) */
  defer?: string[] | 'auto';
  /** which of its calls need approval, as config `approve` (default: the host's) */
  approve?: ToolshedConfig['approve'];
  /** how much it may use */
  quota?: AccessQuota;
}

/** `access[].quota`: limits per identity, across the fleet when the state store is shared. */
export interface AccessQuota {
  /** calls the identity starts in each clock minute, counted in the state store (a fleet shares the count) */
  callsPerMinute?: number;
  /** calls the identity has running at once, counted by each process */
  inFlight?: number;
  /** `serve --http` sessions open at once */
  sessions?: number;
  /**
   * what `callsPerMinute` does while the state store cannot count: 'refuse' (default) refuses the
   * identity's calls with STATE_UNAVAILABLE, 'allow' lets them through uncounted (a warning once per outage)
   */
  onStoreDown?: 'refuse' | 'allow';
}

/** `audit`: one JSON line per call, refused ones included (docs/security.md#audit-log). */
export interface AuditConfig {
  /** 'stdout', 'stderr', or a file (relative to the config's folder; appended to, created 0600) */
  to: string;
  /** the full arguments in each line besides their digest (default false: digests only) */
  arguments?: boolean;
}

/** `mcpServers.<name>.protocol`: which MCP revision toolshed speaks to a server. */
export type McpProtocolChoice = 'auto' | 'legacy' | '2026-07-28';

/** `mcpServers.<name>.listing`: how much of a server's `tools/list` is taken, and how long it may take. */
export interface McpListingLimits {
  /** tools kept (the first N); default 1000 */
  tools?: number;
  /** `tools/list` pages read; default 50 */
  pages?: number;
  /** the whole listing's deadline, and the longest start-up waits for the server; default limits.loadTimeoutMs */
  timeoutMs?: number;
  /** a description longer than this is cut and marked; default 2000 */
  descriptionChars?: number;
  /**
   * one tool's whole definition (name, title, description, annotations, input and output
   * schemas, `_meta`) as JSON: past it the prose in it is cut and marked, and a tool still over
   * it is left out; default 32000
   */
  definitionChars?: number;
}

/** What a changed MCP tool definition does: hidden until accepted, served with a warning, or pinned again silently. */
export type DefinitionChanges = 'hold' | 'warn' | 'accept';

/** Host-wide limits; a tool's own `limits` may lower its timeout and result cap. */
export interface HostLimits extends Required<ToolLimits> {
  memoryMb: number;
  maxQueue: number;
  /** calls that may wait for a worker in all, across plugins */
  maxQueueTotal: number;
  threads: number;
  idleTimeoutMs: number;
  /** how long importing a plugin and extracting its manifest may take */
  loadTimeoutMs: number;
  /** the longest chain of nested ctx.callTool calls */
  maxCallDepth: number;
  /** crashes or timeouts in a window that take a tool or plugin out of service for a cool-down */
  breaker: BreakerLimits;
}

/** The config object users write (see config.schema.json). */
export interface ToolshedConfig {
  $schema?: string;
  plugins?: PluginEntry[];
  builtins?: boolean;
  toolsets?: Record<string, { description?: string; includes?: string[]; tools?: string[] }>;
  enable?: string[];
  disable?: string[];
  prefer?: Record<string, string>;
  checks?: { ttlMs?: number; graceMs?: number; timeoutMs?: number };
  limits?: Partial<Omit<HostLimits, 'breaker'>> & { breaker?: Partial<BreakerLimits> };
  codeExecution?: Partial<CodeLimits> & { tools?: string[] };
  cache?: { dir?: string; enabled?: boolean };
  /** the workspace root tools work in (ctx.cwd), relative to the config file */
  root?: string;
  /** paths (relative to the config file) that stay read-only to the model's tools inside writable roots */
  protect?: string[];
  /**
   * `toolshed serve`: message size over stdio; over HTTP, session expiry and caps, the ops endpoints
   * (docs/operations.md), and the public URL(s) behind a reverse proxy (docs/fleet.md)
   */
  serve?: {
    maxMessageBytes?: number;
    sessionIdleMs?: number;
    maxSessions?: number;
    maxSessionsPerClient?: number;
    ops?: boolean;
    publicUrl?: string | string[];
    trustedProxies?: string[];
    auth?: ServeAuthConfig;
  };
  /**
   * who sees and may call what, by identity (`serve.auth`, `host.as`): the first matching rule decides;
   * docs/security.md#access-rules
   */
  access?: AccessRule[];
  /** an audit line per call (docs/security.md#audit-log) */
  audit?: AuditConfig;
  /**
   * where session state lives: this process (default) or a Valkey/Redis server a fleet shares
   * (docs/configuration.md#state)
   */
  state?: StateConfig;
  /** modules whose default export is hooks (`{ beforeCall, afterCall }` or an array), relative to the config file */
  hooks?: string[];
  /** tools whose calls wait for approval: names (tools or toolsets), or `{ destructive, tools, timeoutMs }` */
  approve?: string[] | { tools?: string[]; destructive?: boolean; timeoutMs?: number };
  defer?: string[] | 'auto';
  search?: SearchConfig;
  mcpServers?: Record<string, McpServerEntry>;
  /**
   * default limits of every sandboxed child (untrusted plugin, stdio MCP server, terminal command); docs/security.md
   */
  resources?: ResourceSettings;
  /** what a changed MCP tool definition does, for every server without its own (default 'hold') */
  definitionChanges?: DefinitionChanges;
}

/** `state`: where session state lives (docs/configuration.md#state). */
export interface StateConfig {
  /** 'memory' (default: this process only) or a `redis://`, `rediss://`, `valkey://` or `valkeys://` URL */
  store?: string;
  /** put in front of every key and channel (default 'toolshed:'), so several fleets may share one server */
  prefix?: string;
  /** a session's state expires this long after its last use (default 3600000, an hour) */
  sessionTtlMs?: number;
}

/** `search`: how deferred tools are found and loaded per session (docs/tool-search.md). */
export interface SearchConfig {
  maxResults?: number;
  alwaysLoaded?: string[];
  native?: boolean | 'bm25' | 'regex';
  budgetTokens?: number;
  sessions?: { max?: number; ttlMs?: number; maxTools?: number };
  /**
   * plugins (package names), MCP servers (`mcp:<name>`), toolsets or tools tool_search never returns; `*` patterns
   * allowed
   */
  exclude?: string[];
  /**
   * turns texts into vectors: tool_search then ranks lexically and by vector, fused
   * (docs/tool-search.md#embeddings-optional); JS/TS configs and createToolHost only
   */
  embedder?: Embedder;
}

/**
 * An embeddings model the operator supplies (a hosted API, a local model): toolshed ships and
 * downloads none. `embed` gets at most `batchSize` texts and returns one vector per text, all of
 * one dimension; `signal` aborts when the call times out or the host closes.
 * @example
 * const embedder: Embedder = { model: 'text-embedding-3-small', embed: async (texts, { signal }) => myApi.embed(texts,
 * { signal }) };
 */
export interface Embedder {
  /** names the model: part of each cached vector's key, so a new model re-embeds everything */
  model: string;
  embed(texts: string[], options: { signal: AbortSignal }): Promise<number[][]>;
  /** texts per `embed` call when tools are embedded (default 32) */
  batchSize?: number;
  /** how long one `embed` call may take before it is aborted and counted as failed (default 5000) */
  timeoutMs?: number;
}

/** `search` with every default applied; `native` is the Anthropic variant, or false. */
export interface ResolvedSearch {
  maxResults: number;
  alwaysLoaded: string[];
  native: false | 'bm25' | 'regex';
  budgetTokens: number;
  sessions: { max: number; ttlMs: number; maxTools: number };
  exclude: string[];
  /** the embedder with its defaults, when one is configured */
  embedder?: Required<Embedder>;
}

/** The config with every default applied. */
export interface ResolvedConfig {
  /** the file it came from, or undefined for an object or the embedded default */
  file: string | undefined;
  /** folder plugin names and paths resolve from */
  dir: string;
  /** the workspace root: ctx.cwd of every handler and check, where file and terminal tools work */
  root: string;
  /**
   * where `root` came from: an option (`--root`, an embedder, an MCP client), the config's `root`, or the working
   * directory
   */
  rootFrom: 'option' | 'config' | 'cwd';
  plugins: PluginEntry[];
  builtins: boolean;
  toolsets: Record<string, { description?: string; includes: string[]; tools: string[] }>;
  enable: string[];
  disable: string[];
  prefer: Record<string, string>;
  checks: { ttlMs: number; graceMs: number; timeoutMs: number };
  limits: HostLimits;
  codeExecution: CodeLimits & { tools: string[] | undefined };
  /** `dir` is undefined when there is no safe default folder (the cache is then off) */
  cache: {
    dir: string | undefined;
    enabled: boolean;
    /** why a configured `cache.dir` was not used (it lies where the model's tools write) */
    refused?: string;
  };
  /**
   * `toolshed serve`: the largest message one stdio line may carry; over HTTP, the idle time after which a session
   * closes, the most sessions at once and per client, whether /healthz, /readyz and /metrics are served
   * (absent: on loopback only), the URLs a reverse proxy serves it at, and the proxies trusted to name clients
   */
  serve: {
    maxMessageBytes: number;
    sessionIdleMs: number;
    maxSessions: number;
    maxSessionsPerClient: number;
    ops?: boolean;
    publicUrl: string[];
    trustedProxies: string[];
    auth?: ServeAuthConfig;
  };
  /** who sees and may call what, by identity; empty: every identity gets everything */
  access: AccessRule[];
  /** where audit lines go (`to` a file is absolute), when on */
  audit?: Required<AuditConfig>;
  /** where session state lives */
  state: Required<StateConfig>;
  hooks: string[];
  /** the config's own protected paths, as written (relative to `dir`) */
  protect: string[];
  approve: { tools: string[]; destructive: boolean; timeoutMs: number };
  /** names and patterns to defer, or 'auto' (docs/tool-search.md) */
  defer: string[] | 'auto';
  search: ResolvedSearch;
  mcpServers: Record<string, McpServerEntry>;
  /** the default resource limits of sandboxed children; an entry's own `resources` overrides them key by key */
  resources: ResourceLimits;
  /** what a changed MCP tool definition does, for every server without its own */
  definitionChanges: DefinitionChanges;
}

/** `limits.breaker`: how many crashes or timeouts in what window open a circuit, and for how long. */
export interface BreakerLimits {
  /** crashes or timeouts within `windowMs` that open the circuit; 0 turns the breaker off */
  failures: number;
  windowMs: number;
  coolDownMs: number;
  /** count failures in the state store, so every replica of a fleet opens a circuit together (default false) */
  shared?: boolean;
}
