/**
 * MCP servers as a second kind of tool source next to plugins. Each
 * configured server becomes a `LoadedPlugin` whose manifest is built from
 * its `tools/list` and whose runner is an MCP client (runner.ts), so its
 * tools pass the same three layers, dispatch and explain as plugin tools.
 * The host loads this module only when the config has `mcpServers`.
 */
import { performance } from 'node:perf_hooks';
import { McpConnection } from './connection.js';
import { McpRunner } from './runner.js';
import { resolveServers, type ResolvedServer } from './config.js';
import { serverTools, type ServerTool, type UpstreamTool } from './tools.js';
import { resolveGrantPaths } from '../../boundary/launch/paths.js';
import type { ResolvedConfig } from '../config/config.js';
import type { LoadedPlugin, PluginLoadResult } from '../load/types.js';
import type { ProtectedPath } from '../../boundary/plugin-api.js';
import type { ConnectionReport, DefinitionChange } from '../runners/connection-report.js';
import { HeldDefinitions } from './held-definitions.js';
import type { ClientAnswerers } from './server-requests.js';
import type { Elicitor, LogLevel, Sampler } from '../../boundary/server-requests.js';
import type { CredentialProvider } from '../../boundary/identity.js';
import { CallerClients, CallerTokens } from './per-identity.js';
import { redactUrl, redactUrlsIn } from '../text/redact-url.js';
import type { ActingForCallers } from './runner.js';
import type { Clock } from '../state/clock.js';

export type { ConnectionReport } from '../runners/connection-report.js';

/** What the servers need from the host. */
export interface McpServersOptions {
  config: ResolvedConfig;
  /** the host's environment, where granted variables come from */
  env: Record<string, string | undefined>;
  /** the host's protected paths: read-only inside a server's granted write paths */
  protect?: readonly ProtectedPath[];
  /** what restarts, probes and token expiry wait on (default the real clock) */
  clock?: Clock;
  /** a server connected, went away or changed its tools: rebuild the registry and re-expose */
  onChange(): void;
  /**
   * a server's stderr line or a connection note, or a log message of its that belongs to no call (with its level and
   * logger)
   */
  onLog(entry: { plugin: string; message: string; level?: LogLevel; logger?: string }): void;
  /** answers servers' elicitation requests no call's own onElicitation answers */
  onElicitation?: Elicitor;
  /** runs servers' sampling requests; without it sampling is not offered */
  onSampling?: Sampler;
  /** a tool's definition changed since it was accepted (reported once per new definition) */
  onDefinitionChanged?(change: DefinitionChange): void;
  /** the embedder's per-identity credentials, for servers whose `credentials` is 'provider' */
  credentials?: CredentialProvider;
}

interface Entry {
  server: ResolvedServer;
  connection: McpConnection;
  plugin: LoadedPlugin;
  tools: ServerTool[];
  /** exposed name → the server's own name, for calls */
  upstream: Map<string, string>;
  /** exposed name → the server's own name where they differ, for explain */
  renamed: Record<string, string>;
  warnings: string[];
  /** bumped at each rebuild: later servers' names depend on this one's */
  generation: number;
  /** what the tools were last built from: the listing, and what named the tools before this server's */
  built?: { listed: readonly UpstreamTool[]; before: string };
}

/** The folders a stdio server's grants name, as real paths (a write folder may also be read). */
function serverRoots(server: ResolvedServer, configDir: string): { read: string[]; write: string[] } {
  const write = resolveGrantPaths(server.grant.fsWrite, configDir);
  return { read: [...new Set([...resolveGrantPaths(server.grant.fsRead, configDir), ...write])], write };
}

/** Whose credentials a server's calls carry, in words, when they are each caller's own (explain's `credentials`). */
function credentialsText(server: ResolvedServer): string | undefined {
  const { credentials } = server;
  if (credentials === 'operator') return undefined;
  if (credentials === 'provider') return "each caller's token, from the embedder's credentials provider";
  const { endpoint, audience } = credentials.exchange;
  const where =
    'tokenEndpoint' in endpoint
      ? `${redactUrl(endpoint.tokenEndpoint)} (credentials.exchange.tokenEndpoint)`
      : `the token endpoint of serve.auth.issuer ${redactUrl(endpoint.issuer)} (its metadata)`;
  return `each caller's token, exchanged at ${where} for one with audience ${redactUrl(audience)}`;
}

function toolsetDescription(server: ResolvedServer): string {
  return `Tools of the MCP server ${server.name}`;
}

/** Every configured MCP server of one host. */
export class McpServers {
  private readonly entries: Entry[];
  private readonly started = performance.now();
  /** the tools' pinned definitions, and which are held (held-definitions.ts) */
  readonly definitions: HeldDefinitions;

  /** Resolves the config's `mcpServers` (throws CONFIG_INVALID for an entry that cannot work); starts nothing. */
  constructor(private readonly options: McpServersOptions) {
    this.entries = resolveServers(options.config).map((server) => this.entry(server));
    this.definitions = new HeldDefinitions(
      options.config,
      this.entries.map((e) => e.server),
      options.onDefinitionChanged,
    );
  }

  private entry(server: ResolvedServer): Entry {
    const connection = new McpConnection(
      server,
      {
        env: this.options.env,
        configDir: this.options.config.dir,
        ...(this.options.protect ? { protect: this.options.protect } : {}),
      },
      {
        onChange: () => this.options.onChange(),
        onLog: (message) => this.options.onLog({ plugin: server.pluginName, message: redactUrlsIn(message) }),
        onServerLog: (entry) =>
          this.options.onLog({ plugin: server.pluginName, ...entry, message: redactUrlsIn(entry.message) }),
      },
      this.answerers(),
      this.options.clock,
    );
    const entry: Entry = {
      server,
      connection,
      tools: [],
      upstream: new Map(),
      renamed: {},
      warnings: [],
      generation: 0,
      plugin: undefined as never,
    };
    const runner = new McpRunner(
      connection,
      (tool) => entry.upstream.get(tool),
      () => this.report(entry),
      this.actingForCallers(server, connection),
    );
    entry.plugin = {
      status: 'loaded',
      source: {
        name: server.pluginName,
        specifier: `mcpServers.${server.name}`,
        dir: server.stdio?.cwd ?? this.options.config.dir,
        // Shown, never requested: the connection has the URL itself, secrets and all.
        entry: server.stdio ? server.stdio.command : redactUrl(server.http!.url),
        version: '',
        builtin: false,
        trust: server.trust,
        grant: server.grant,
        dependencyDirs: [],
      },
      manifest: {
        apiVersion: 1,
        toolsets: { [server.toolset]: { description: toolsetDescription(server) } },
        permissions: {},
        tools: [],
      },
      manifestSource: 'listed',
      scope: { roots: serverRoots(server, this.options.config.dir), options: {} },
      loadMs: 0,
      runner,
      env: server.grant.env,
      permissions: {
        requested: { network: false, env: [], fsRead: [], fsWrite: [], callTools: [] },
        granted: server.grant,
        effective: server.grant,
      },
    };
    return entry;
  }

  /** How a URL server's calls get their callers' credentials; undefined when they carry the operator's. */
  private actingForCallers(server: ResolvedServer, connection: McpConnection): ActingForCallers | undefined {
    const { credentials, http } = server;
    if (credentials === 'operator' || !http) return undefined;
    const { clock } = this.options;
    const tokens = new CallerTokens(
      { name: server.name, pluginName: server.pluginName, url: http.url, credentials },
      this.options.env,
      this.options.credentials,
      clock && (() => clock.now()),
    );
    return { tokens, clients: new CallerClients(connection) };
  }

  /** Who answers a server's requests: the host's callbacks, and the workspace root as its MCP roots. */
  private answerers(): ClientAnswerers {
    const { onElicitation, onSampling, config } = this.options;
    return { roots: [config.root], ...(onElicitation ? { onElicitation } : {}), ...(onSampling ? { onSampling } : {}) };
  }

  /** Cheap for each tool: availability asks it of every tool of the server. */
  private report(entry: Entry): ConnectionReport {
    const report = entry.connection.report();
    report.renamed = entry.renamed;
    if (entry.warnings.length) report.warnings.push(...entry.warnings);
    const changes = this.definitions.changesOf(entry.server);
    if (changes) report.definitionChanges = changes;
    const credentials = credentialsText(entry.server);
    if (credentials) report.credentials = credentials;
    return report;
  }

  /**
   * Starts every server that should run and waits for each first attempt: connected, or failed
   * with a restart scheduled. An attempt is bounded by the handshake's deadline
   * (limits.loadTimeoutMs) and then the listing's (listing.timeoutMs), so start-up never waits
   * on a server longer than that; one that missed them shows its tools after a restart, with a change.
   */
  async start(): Promise<void> {
    await Promise.all(
      this.entries.map(async (entry) => {
        await entry.connection.start();
        entry.plugin.loadMs = performance.now() - this.started;
      }),
    );
  }

  /**
   * The servers as loaded plugins, their manifests rebuilt from the latest
   * listings. Names are chosen against every tool `plugins` define, then
   * against earlier servers' tools, in config order.
   */
  plugins(plugins: readonly PluginLoadResult[]): LoadedPlugin[] {
    const taken = new Set<string>();
    for (const plugin of plugins)
      if (plugin.status === 'loaded') for (const tool of plugin.manifest.tools) taken.add(tool.name);
    // What decides a server's names: the plugins' names and the servers before it. Unchanged, with an
    // unchanged listing, its tools are kept as they are: only a server that re-listed is rebuilt.
    let before = [...taken].join('\n');
    for (const entry of this.entries) {
      const info = entry.connection.report().server;
      if (info) entry.plugin.source.version = info.version;
      if (entry.built?.listed === entry.connection.tools && entry.built.before === before)
        for (const tool of entry.tools) taken.add(tool.manifest.name);
      else this.build(entry, taken, before);
      before += `\n${entry.server.name}#${entry.generation}`;
    }
    return this.entries.map((e) => e.plugin);
  }

  /** Rebuilds one server's manifests from its latest listing. */
  private build(entry: Entry, taken: Set<string>, before: string): void {
    const listed = entry.connection.tools;
    entry.generation++;
    entry.warnings = [];
    entry.tools = serverTools(entry.server, listed, taken, entry.warnings, entry.connection.noTasks());
    // Before its first listing a server has no tools to review: an empty list then is no accepted listing.
    if (entry.connection.listed) this.definitions.review(entry.server, listed, entry.tools, entry.warnings);
    entry.upstream = new Map(entry.tools.map((t) => [t.manifest.name, t.upstream]));
    entry.renamed = {};
    for (const tool of entry.tools)
      if (tool.manifest.name !== tool.upstream) entry.renamed[tool.manifest.name] = tool.upstream;
    entry.built = { listed, before };
    entry.plugin.manifest = { ...entry.plugin.manifest, tools: entry.tools.map((t) => t.manifest) };
  }

  /**
   * Accepts changed definitions (held-definitions.ts) and marks the servers for a rebuild, so
   * the next `plugins()` reviews them against the new pins and shows the accepted tools.
   */
  accept(request: { server?: string; tools?: readonly string[] }): DefinitionChange[] {
    const accepted = this.definitions.accept(request);
    for (const entry of this.entries)
      if (accepted.some((change) => change.server === entry.server.name)) entry.built = undefined;
    return accepted;
  }

  /** The runners, for the host to own and close. */
  runners(): McpRunner[] {
    return this.entries.map((e) => e.plugin.runner as McpRunner);
  }

  /** Stops every server. */
  async close(): Promise<void> {
    await Promise.all(this.entries.map((e) => e.connection.close()));
  }
}
