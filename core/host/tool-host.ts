/**
 * The shape every running host has, and every view of one: `createToolHost`
 * returns a ToolHost, and so does `host.view(...)`. Types only, importing only
 * public types: what an embedder can reach stops here (test/package/public-types.test.ts).
 */
import type { CallOutcome } from '../../boundary/outcome.js';
import type {
  Approver,
  CredentialProvider,
  DispatchOptions,
  Elicitor,
  Identity,
  Sampler,
  ToolHooks,
} from '../call/public-types.js';
import type { Clock, SchemaRewriter } from '../expose/public-types.js';
import type { HostEvents } from './events.js';
import type { HostReport } from '../explain/public-types.js';
import type { DefinitionChange } from '../runners/connection-report.js';
import type { Embedder, ResolvedConfig, ToolshedConfig } from '../config/public-types.js';
import type { DefinitionFormat, ToolsByFormat } from '../providers/index.js';
import type { StateStore } from '../state/store-contract.js';

/** Options of `createToolHost`. */
export interface ToolHostOptions {
  /** where config search starts and relative paths resolve (default: `root`, else process.cwd()) */
  cwd?: string;
  /**
   * The workspace root: ctx.cwd of every handler and check, where file and terminal tools
   * work. Overrides the config's `root`; default the config's `root`, else `cwd`.
   */
  root?: string;
  /** a config object, or a path to a config file; omitted = search from cwd */
  config?: ToolshedConfig | string;
  /** the environment checks see and grants come from (default process.env) */
  env?: Record<string, string | undefined>;
  /**
   * the time everything that waits or expires reads: check TTLs, breakers, quotas, sessions,
   * approval timeouts, tasks, debounces, reconnects (default Date.now and the real timers)
   */
  clock?: Clock;
  /** extra definitions steps, run before the built-in ones (execute_code's schema rebuild is one) */
  rewriters?: SchemaRewriter[];
  /** approves calls that need approval (config `approve`); a call's own `onApproval` comes first */
  onApproval?: Approver;
  /** override parts of the config after loading (CLI --enable/--disable) */
  overrides?: Partial<Pick<ToolshedConfig, 'enable' | 'disable'>>;
  /**
   * Accept a config file that differs from the one last accepted, and record it, instead of
   * failing with CONFIG_UNTRUSTED (CI, containers: no one to ask). The env var
   * TOOLSHED_TRUST_CONFIG=1 does the same. See docs/configuration.md#config-trust.
   */
  trustConfig?: boolean;
  /**
   * one-line notes for the person starting the host, such as config trust on first use (the CLI prints them on stderr)
   */
  onNotice?: (message: string) => void;
  /**
   * Wait for every MCP server's first connection attempt before the host is returned (default
   * true). With false the host is returned once the plugins are loaded; each server's tools join
   * when it has listed them, with a 'change' event (`toolshed serve` works this way, so a slow
   * server never delays the first tools/list).
   */
  waitForServers?: boolean;
  /**
   * answers MCP servers' elicitation requests that no call's own `onElicitation` answers; without it they are declined
   */
  onElicitation?: Elicitor;
  /** runs MCP servers' sampling requests through the embedder's model; without it, toolshed does not offer sampling */
  onSampling?: Sampler;
  /**
   * The state store to keep session state in, instead of the one config `state` names (the
   * embedder opens and closes it; several hosts may share one).
   */
  stateStore?: StateStore;
  /**
   * Supplies per-identity credentials: the secrets plugins declare per identity, and tokens for
   * remote MCP servers used on the caller's behalf (`mcpServers.NAME.credentials: 'provider'`).
   * docs/security.md#acting-for-the-caller.
   */
  credentials?: CredentialProvider;
  /**
   * tool search settings that only code can give: an embedder (over the config's `search.embedder`);
   * docs/tool-search.md#embeddings-optional
   */
  search?: { embedder?: Embedder };
}

/** Options of `definitions()`. */
export interface DefinitionsOptions<F extends DefinitionFormat = DefinitionFormat> {
  /** the provider's tool format (default 'openai') */
  format?: F;
  /**
   * OpenAI strict mode for the openai and responses formats: every property required, optional ones
   * nullable, objects closed; a tool whose schema strict mode cannot express is sent with strict: false.
   * Other formats ignore it. Dispatch still validates against the original schema.
   */
  strict?: boolean;
  /**
   * The conversation the list is for: with deferred tools (config `defer`), the tools this
   * session's searches loaded are appended after the rest, in load order. Omitted = the default session.
   */
  sessionId?: string;
}

/**
 * A narrower selection over the same plugins, pools, checks and caches. A view
 * can only narrow: it exposes what its parent exposes, filtered by these.
 */
export interface ViewOptions {
  /**
   * toolsets or tool names this view keeps (default: everything its parent exposes); 'all' and '*' mean every toolset
   */
  enable?: string[];
  /** toolsets or tool names removed from it, last */
  disable?: string[];
  /** approves this view's calls that need approval (config `approve`); default: its parent's */
  onApproval?: Approver;
  /**
   * what this view defers (found through tool_search, loaded per session), as config `defer`:
   * names, toolsets, `*` patterns or 'auto'; it replaces the parent's (default: the parent's)
   */
  defer?: string[] | 'auto';
}

/** A running toolshed host, or a view of one. */
export interface ToolHost {
  /**
   * The `tools` array to send to the model, sorted by name, in the provider's own shape.
   * @example
   * const tools: AnthropicTool[] = await host.definitions({ format: 'anthropic' });
   */
  definitions<F extends DefinitionFormat = 'openai'>(options?: DefinitionsOptions<F>): Promise<ToolsByFormat[F][]>;
  /** runs a tool call; tool failures come back as the error envelope, never as a throw */
  dispatch(name: string, args?: unknown, options?: DispatchOptions): Promise<string>;
  /** like dispatch, but structured: `{ ok, text }` or `{ ok: false, code, message }` */
  call(name: string, args?: unknown, options?: DispatchOptions): Promise<CallOutcome>;
  /** every plugin and tool: exposed, or why not (as of the last evaluation) */
  explain(): HostReport;
  /** recomputes exposure now (runs checks whose cache expired) and returns the report */
  refresh(): Promise<HostReport>;
  /** forgets cached check results; the next definitions() probes again */
  invalidateChecks(): void;
  /**
   * Accepts MCP tool definitions that changed since they were accepted (docs/mcp-servers.md#pinned-definitions):
   * pins what the server lists now for the tools named (exposed or own names), for every changed tool of
   * `server`, or of every server when `server` is omitted; a held tool is shown again ('change' fires).
   * Resolves with what was accepted, diffs included. Throws USAGE for an unknown server or tool.
   * @example
   * const accepted = await host.acceptDefinitions({ server: 'github', tools: ['create_issue'] });
   */
  acceptDefinitions(request?: { server?: string; tools?: string[] }): Promise<DefinitionChange[]>;
  on<E extends keyof HostEvents>(event: E, listener: (...args: HostEvents[E]) => void): ToolHost;
  off<E extends keyof HostEvents>(event: E, listener: (...args: HostEvents[E]) => void): ToolHost;
  /**
   * Adds hooks around every call made through this host (and through its views); returns the function that removes
   * them.
   * @example
   * const stop = host.use({ beforeCall: (call) => (call.annotations.destructiveHint ? { block: 'read-only session' } :
   * undefined) });
   */
  use(hooks: ToolHooks): () => void;
  /**
   * A ToolHost over the same plugins, pools, checks and caches with a narrower selection: no new
   * workers, its own memoized definitions, and dispatch refuses tools outside it with TOOL_NOT_EXPOSED.
   * Throws TOOLSET_UNKNOWN for a name that is neither a toolset nor a tool.
   * @example
   * const reader = host.view({ enable: ['file'], disable: ['write_file'] });
   */
  view(options: ViewOptions): ToolHost;
  /**
   * This host as `identity` sees it: the view its config `access` rule gives (every tool when there
   * are no rules), with its quotas, every call made for that identity (audit, per-identity
   * credentials). Throws ACCESS_DENIED when rules exist and none matches. Closing it stops
   * following the host, as for a view.
   * @example
   * const alice = host.as({ subject: 'alice', scopes: ['tools:read'], claims: { groups: ['eng'] } });
   */
  as(identity: Identity): ToolHost;
  /**
   * The config in force, with defaults.
   * @deprecated the resolved config is the host's own; `explain().config` names the config file, its folder and the
   * workspace root. Removed in toolshed 2.
   */
  readonly config: ResolvedConfig;
  /** where session state lives (config `state`, or the `stateStore` option); a view shares its host's */
  readonly state: StateStore;
  /** the host's clock (the `clock` option, else the real one); a view shares its host's */
  readonly clock: Clock;
  /** a host: stops every pool, child process and port. A view: stops following its host (the host stays open). */
  close(): Promise<void>;
}
