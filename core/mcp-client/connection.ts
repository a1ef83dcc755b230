/**
 * One MCP server's connection, on the SDK's `Client` and its stdio or
 * Streamable HTTP transport: start (through the sandboxed launch for stdio),
 * the era negotiated as `protocol` says (`auto`: `server/discover`, then the 2025
 * `initialize` for a server that does not know it; on stdio the probe runs in the
 * server's own sandboxed process, never in a sibling started beside it), the
 * handshake within `limits.loadTimeoutMs` and a `tools/list` bounded by the
 * server's `listing` limits (listing.ts), a re-list after
 * `notifications/tools/list_changed` (debounced, at most one in flight, so a
 * storm of them costs one listing every few seconds), and a restart with capped
 * exponential backoff whenever the server exits, fails its handshake or times
 * out. An HTTP server is probed (probe.ts): a `ping` every probe interval while
 * connected and after a call's transport error, and while it is unreachable a
 * small request to its URL every probe interval, the handshake following the
 * first answer; a server that ended the session is initialized again at once.
 * An HTTP server without a static Authorization header gets the OAuth tokens
 * `toolshed auth NAME` stored (oauth-client.ts), refreshed before a call once
 * expired; one that needs a login it has not had, or whose refresh was
 * refused, waits with the reason naming `toolshed auth NAME`, re-reading its
 * token file once per probe interval (a local stat, no request), and
 * reconnects as soon as a login stored new tokens.
 * Every state change is reported, with the reason in words, so the host can
 * hide or show the server's tools.
 *
 * The class composes its parts: the attempt and its stderr (attempt.ts), its transport
 * (attempt-transport.ts), the era (era-choice.ts), the restart schedule (restart-backoff.ts),
 * an HTTP server's probes (http-probes.ts), the tools last listed and when to list again
 * (listed-tools.ts), why it failed (connection-failure.ts) and where it stands
 * (connection-status.ts).
 */
import { Client, StreamableHTTPClientTransport, type ConnectOptions } from '@modelcontextprotocol/client';
import {
  clientCapabilities,
  offered,
  SERVER_LOG_LEVEL,
  ServerRequests,
  type ClientAnswerers,
} from './server-requests.js';
import { TOOLSHED_VERSION } from '../../boundary/version.js';
import { pinnedFetch } from './pinned-fetch.js';
import { sessionEnded, transportFailure } from './probe.js';
import { systemClock, timers, type TimerHandle, type Timers } from '../state/clock.js';
import type { Clock } from '../state/clock.js';
import { planStdioLaunch, type LaunchContext, type StdioLaunch } from './launch.js';
import type { ResolvedServer } from './config.js';
import type { ConnectionReport, ConnectionState } from '../runners/connection-report.js';
import type { UpstreamTool } from './tools.js';
import { listTools } from './listing.js';
import type { LogLevel } from '../../boundary/server-requests.js';
import { callsAsTasks } from './task-call.js';
import { needsAuthorization, ServerOAuth } from './oauth-client.js';
import { OAuthState, oauthFile } from './oauth-state.js';
import { userStateDir } from '../state/user-dirs.js';
import { redactUrl, redactUrlsIn } from '../text/redact-url.js';
import { Attempt, StderrTail } from './attempt.js';
import { attemptTransport, type TransportHooks } from './attempt-transport.js';
import { RestartBackoff } from './restart-backoff.js';
import { ListedTools, Relisting } from './listed-tools.js';
import { handshakeFailure } from './connection-failure.js';
import { EraChoice } from './era-choice.js';
import { HttpProbes } from './http-probes.js';
import { ConnectionStatus } from './connection-status.js';

/** Where a connection reports to. */
interface ConnectionEvents {
  /** the state or the tool list changed */
  onChange(): void;
  /** a line the server wrote to stderr, or a note about its connection */
  onLog(message: string): void;
  /** a log message the server sent that belongs to no call */
  onServerLog?(entry: { message: string; level: LogLevel; logger?: string }): void;
}

/** One server's client, kept connected. */
export class McpConnection {
  private readonly status: ConnectionStatus;
  private current: Attempt | undefined;
  private connected: Client | undefined;
  private attemptIds = 0;
  /**
   * restarts, probes and re-listings wait on the host's clock (real timers unref'd: they alone must not keep a finished
   * CLI run alive)
   */
  private readonly timers: Timers;
  private readonly backoff: RestartBackoff;
  /** the next restart, reconnect or look at the token file */
  private timer: TimerHandle | undefined;
  /** an HTTP server's probes */
  private readonly probes: HttpProbes | undefined;
  private readonly list = new ListedTools();
  private readonly relisting: Relisting;
  private closed = false;
  /** what the server wrote to stderr, for explain */
  private readonly stderrTail = new StderrTail();
  private readonly launch: StdioLaunch | undefined;
  private readonly hooks: TransportHooks;
  private readonly era: EraChoice;
  /** its log messages and requests, routed to the calls and answerers */
  readonly requests: ServerRequests;
  /** what the SDK reported and dropped on this connection (malformed messages, late progress, …) */
  readonly dropped: { count: number; last?: string } = { count: 0 };
  /** its OAuth client (HTTP servers without a static Authorization header) */
  readonly oauth: ServerOAuth | undefined;

  constructor(
    readonly server: ResolvedServer,
    context: LaunchContext,
    private readonly events: ConnectionEvents,
    private readonly answerers: ClientAnswerers = { roots: [] },
    clock: Clock = systemClock,
  ) {
    this.timers = timers(clock, { unref: true });
    this.backoff = new RestartBackoff(() => this.timers.now());
    this.relisting = new Relisting(this.timers);
    this.requests = this.serverRequests();
    this.status = new ConnectionStatus(server.name, server.notStarted);
    this.era = new EraChoice(server);
    if (server.http) this.probes = new HttpProbes(server.http, server.startTimeoutMs, this.timers);
    if (server.stdio) this.launch = planStdioLaunch(server, context);
    if (server.http?.oauth) this.oauth = serverOAuth(server, context.env, clock);
    this.hooks = {
      closed: () => this.closed,
      stderr: (attempt, text) => this.stderr(attempt, text),
      onLog: (message) => this.events.onLog(message),
    };
  }

  /** the tools as the server last listed them */
  get tools(): UpstreamTool[] {
    return this.list.tools;
  }

  /**
   * whether the server has listed its tools yet (before that, `tools` is empty because nothing was heard, not because
   * it lists none)
   */
  get listed(): boolean {
    return this.list.listed;
  }

  /** output schemas by the server's own tool name, as last listed */
  get outputSchemas(): Map<string, object> {
    return this.list.outputSchemas;
  }

  /** Routing for a client's log messages and requests: to its running calls, else the host's log. */
  private serverRequests(): ServerRequests {
    const { events } = this;
    return new ServerRequests(this.server.name, this.answerers, (entry) =>
      events.onServerLog ? events.onServerLog(entry) : events.onLog(entry.message),
    );
  }

  /**
   * Another client of this HTTP server, whose requests carry `headers` in place of the entry's
   * headers of the same names (a caller's own `Authorization`), connected within the handshake's
   * deadline. Its server requests have routing of their own, so what it sends reaches only its
   * own calls. The caller owns and closes it; probing and listing stay the shared client's.
   */
  async connectWith(headers: Record<string, string>): Promise<{ client: Client; requests: ServerRequests }> {
    const { url, headers: entry } = this.server.http!;
    const replaced = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
    const kept = Object.fromEntries(Object.entries(entry).filter(([name]) => !replaced.has(name.toLowerCase())));
    const client = new Client(
      { name: 'toolshed', version: TOOLSHED_VERSION },
      { capabilities: clientCapabilities(this.answerers), ...this.era.negotiation() },
    );
    const requests = this.serverRequests();
    requests.install(client);
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { ...kept, ...headers } },
        fetch: pinnedFetch(url),
      }),
      { timeout: this.server.startTimeoutMs },
    );
    await this.askForLogs(client);
    return { client, requests };
  }

  /** The first attempt; resolves when it connected or failed (a restart is then scheduled). Never rejects. */
  start(): Promise<void> {
    if (this.server.notStarted || this.closed) return Promise.resolve();
    return this.connect();
  }

  /** The client while connected. */
  client(): Client | undefined {
    return this.connected;
  }

  /** Why a tool that must run as a task cannot be called on this connection; false when it can. */
  noTasks(): string | false {
    const client = this.connected;
    if (!client) return 'the server is not connected';
    if (client.getProtocolEra() === 'modern')
      return 'the 2026-07-28 revision this connection speaks has no tasks in its core';
    return callsAsTasks(client)
      ? false
      : 'the server does not declare task-augmented tools/call (capabilities.tasks.requests.tools.call)';
  }

  /** Whether the server's own tool `name` must be called as a task. */
  requiresTask(name: string): boolean {
    return this.list.requiresTask(name);
  }

  /** Whether the connection speaks 2026-07-28 (a log level then rides on each request). */
  modern(): boolean {
    return this.connected?.getProtocolEra() === 'modern';
  }

  /** Why the server's tools are hidden (undefined while connected). */
  why(): string | undefined {
    return this.status.why();
  }

  /**
   * Why a call's error means the request did not reach this HTTP server (in words), or undefined when
   * the server answered it. The connection stays up: a session the server ended is initialized again
   * at once, and anything else is probed, the tools hidden only when the probe gets no answer either.
   */
  transportError(error: unknown): string | undefined {
    if (!this.server.http) return undefined;
    const attempt = this.current;
    const connected = attempt !== undefined && this.connected === attempt.client && this.status.state === 'connected';
    const authorization = needsAuthorization(error);
    if (authorization) {
      if (connected) this.awaitAuthorization(attempt, authorization.reason);
      return authorization.reason;
    }
    if (sessionEnded(error)) {
      if (connected) this.drop(attempt, 'unreachable', 'ended its session', { reinitialize: true });
      return 'it no longer knows the session (404); a new one is being initialized';
    }
    const failure = transportFailure(error);
    if (failure && connected) void this.probe(attempt);
    return failure;
  }

  /** What explain shows. */
  report(): ConnectionReport {
    const { status, server } = this;
    const report: ConnectionReport = {
      transport: server.stdio ? 'stdio' : 'http',
      state: status.state,
      target: server.stdio ? [server.stdio.command, ...server.stdio.args].join(' ') : redactUrl(server.http!.url),
      restarts: status.restarts,
      renamed: {},
      warnings: this.list.notes.map(redactUrlsIn),
    };
    if (status.state !== 'connected' && status.reason) report.reason = redactUrlsIn(status.reason);
    if (status.serverInfo) report.server = status.serverInfo;
    if (this.current?.running()) report.pid = this.current.pid;
    if (this.launch) report.protections = this.launch.protections;
    if (this.launch?.runs) report.runs = this.launch.runs;
    if (this.stderrTail.text) report.stderr = this.stderrTail.text;
    if (status.protocolVersion) report.protocolVersion = status.protocolVersion;
    report.offered = offered(this.answerers);
    if (this.requests.logs.length) report.logs = [...this.requests.logs];
    const auth = this.authSummary();
    if (auth) report.auth = auth;
    return report;
  }

  /** Stops the server (stdio: stdin closed, then SIGTERM, then SIGKILL) and every restart. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.timers.cancel(this.timer);
    this.probes?.close();
    this.relisting.cancel();
    const attempt = this.current;
    this.current = undefined;
    this.connected = undefined;
    this.status.set('closed', 'the host is closed');
    // A host closed while the server starts (a refused `ui`/`serve` start): the SDK's client does not
    // know its transport yet, and closing the client alone left the server's process running.
    await Promise.all([attempt?.client.close().catch(() => {}), attempt?.transport?.close().catch(() => {})]);
  }

  /**
   * Where its OAuth login stands (never a token); undefined without OAuth, or when its file cannot be read (the
   * connection says why).
   */
  private authSummary(): ConnectionReport['auth'] {
    try {
      return this.oauth?.summary();
    } catch {
      return undefined;
    }
  }

  private setState(state: ConnectionState, reason?: string): void {
    this.status.set(state, reason);
    this.events.onChange();
  }

  private stderr(attempt: Attempt, text: string): void {
    this.stderrTail.add(text);
    attempt.recent.add(text);
    for (const line of text.split('\n')) if (line.trim()) this.events.onLog(line.trimEnd());
  }

  /** A new attempt: its client, routed to this connection, made current. */
  private newAttempt(): Attempt {
    const client = new Client(
      { name: 'toolshed', version: TOOLSHED_VERSION },
      {
        capabilities: clientCapabilities(this.answerers),
        ...this.era.negotiation(),
        listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => this.listChanged(attempt) } },
      },
    );
    const attempt = new Attempt(++this.attemptIds, client);
    this.requests.install(client);
    this.current = attempt;
    client.onclose = () => this.onClosed(attempt);
    client.onerror = (error) => {
      this.dropped.count++;
      this.dropped.last = error.message;
    };
    return attempt;
  }

  private async connect(): Promise<void> {
    const attempt = this.newAttempt();
    const { client } = attempt;
    try {
      const options: ConnectOptions = { timeout: this.server.startTimeoutMs };
      const transport = attemptTransport(attempt, this.server, {
        launch: this.launch,
        oauth: this.oauth,
        hooks: this.hooks,
      });
      await client.connect(transport, options);
      if (attempt !== this.current) return;
      this.status.handshake(client.getServerVersion(), client.getNegotiatedProtocolVersion());
      this.connected = client;
      await this.askForLogs(client);
      await this.relist(attempt);
      if (attempt !== this.current) return;
      this.backoff.up();
      // Start-up chatter does not explain a later exit.
      attempt.recent = new StderrTail();
      this.setState('connected');
      this.scheduleProbe(attempt);
    } catch (error) {
      if (attempt !== this.current) return;
      // A stdio server that exits on a request before `initialize` (servers on some SDKs do) is a 2025 one: start it
      // again, without the probe.
      if (!this.closed && this.era.killedByProbe(attempt, error)) return this.withoutProbe(attempt);
      this.fail(attempt, error);
    }
  }

  /** Starts the server again right away, in the 2025 era from now on: it exited on the probe. */
  private withoutProbe(attempt: Attempt): Promise<void> {
    this.era.fallBack();
    this.events.onLog(
      `the MCP server ${this.server.name} exited on the server/discover probe: it is spoken to in the 2025 era ` +
        `from now on`,
    );
    this.current = undefined;
    attempt.client.close().catch(() => {});
    return this.connect();
  }

  /** On the 2025 era the log level is the session's (`logging/setLevel`); on 2026-07-28 it rides on each call. */
  private async askForLogs(client: Client): Promise<void> {
    if (client.getProtocolEra() === 'modern' || !client.getServerCapabilities()?.logging) return;
    await client.setLoggingLevel(SERVER_LOG_LEVEL, { timeout: this.server.startTimeoutMs }).catch((error) => {
      this.events.onLog(
        `the MCP server ${this.server.name} refused logging/setLevel: ${(error as Error)?.message ?? String(error)}`,
      );
    });
  }

  private fail(attempt: Attempt, error: unknown): void {
    const failure = handshakeFailure(attempt, error, this.server);
    if ('authorization' in failure) return this.awaitAuthorization(attempt, failure.authorization);
    this.drop(attempt, failure.state, failure.why);
  }

  /** The transport closed: after a handshake, that is the server going away. */
  private onClosed(attempt: Attempt): void {
    if (attempt !== this.current || this.closed || this.connected !== attempt.client) return;
    this.drop(attempt, 'exited', attempt.ending());
  }

  /** Lets go of `attempt`: its client closed, its timers stopped, nothing connected. */
  private abandon(attempt: Attempt): void {
    this.current = undefined;
    this.relisting.cancel();
    this.probes?.cancel();
    this.connected = undefined;
    attempt.client.close().catch(() => {});
  }

  /**
   * Gives up on `attempt`, reports why, and schedules the next one: a new session at once when the
   * server ended its session, the handshake once an unreachable HTTP server answers a probe, else
   * a restart after the backoff.
   */
  private drop(attempt: Attempt, state: ConnectionState, why: string, how: { reinitialize?: boolean } = {}): void {
    this.abandon(attempt);
    if (this.closed) return;
    this.backoff.down();
    const http = this.server.http;
    const retry = this.backoff.retry(state, http, how.reinitialize);
    const reason = `the MCP server ${this.server.name} ${why}; ${retry.next}`;
    this.events.onLog(reason);
    this.setState(state, reason);
    const again = () => {
      this.status.retrying(`${http ? 'reconnecting' : 'restarting'} (it ${why})`);
      void this.connect();
    };
    if (retry.when === 'now') return again();
    if (retry.when === 'answered') return this.probes!.awaitAnswer(again);
    // A pending restart alone must not keep a finished CLI run alive (the timers are unref'd).
    this.timer = this.timers.after(retry.delayMs, again);
  }

  /**
   * Gives up on `attempt` until a login: the tools hidden with `reason` (which names `toolshed auth
   * NAME`), no request sent, the token file checked once per probe interval, and a new handshake
   * as soon as it holds tokens it did not hold before.
   */
  private awaitAuthorization(attempt: Attempt, reason: string): void {
    this.abandon(attempt);
    if (this.closed) return;
    this.backoff.down(false);
    this.events.onLog(`the MCP server ${this.server.name} ${reason}`);
    this.setState('needs authorization', reason);
    this.awaitTokens();
  }

  /** One look at the token file per probe interval; tokens written since the last look start the handshake. */
  private awaitTokens(): void {
    const oauth = this.oauth!;
    this.timer = this.timers.after(this.server.http!.probeIntervalMs, () => {
      if (this.closed) return;
      let renewed = false;
      try {
        renewed = oauth.store.changed() && oauth.store.read().tokens !== undefined;
      } catch {
        // An unreadable file stays hidden behind the same reason; the next look tries again.
      }
      if (!renewed) return this.awaitTokens();
      this.status.retrying('reconnecting (new tokens were stored)');
      void this.connect();
    });
  }

  /** The next probe of a connected HTTP server, one probe interval (with jitter) from now. */
  private scheduleProbe(attempt: Attempt): void {
    if (!this.probes || attempt !== this.current || this.closed) return;
    this.probes.schedule(() => void this.probe(attempt));
  }

  /**
   * Asks the connected server for a cheap answer; a probe that gets none is sent once more right
   * away (behind a balancer the next request goes to another replica), and a second one without
   * an answer drops the connection, hiding the tools with the reason.
   */
  private probe(attempt: Attempt): Promise<void> {
    this.probes!.cancel();
    attempt.probing ??= (async () => {
      const why = (await this.probes!.ping(attempt.client)) && (await this.probes!.ping(attempt.client));
      if (!why || attempt !== this.current || this.connected !== attempt.client) return;
      if (why.authorization) this.awaitAuthorization(attempt, why.text);
      else this.drop(attempt, 'unreachable', why.text, { reinitialize: why.reinitialize });
    })().finally(() => {
      attempt.probing = undefined;
      this.scheduleProbe(attempt);
    });
    return attempt.probing;
  }

  /** A list_changed: a re-list, debounced (listed-tools.ts). */
  private listChanged(attempt: Attempt): void {
    if (attempt !== this.current || this.closed) return;
    this.relisting.changed(() => void this.relist(attempt).catch(() => {}));
  }

  /** Lists the tools within the listing limits; asked again while listing, it lists once more after. */
  private relist(attempt: Attempt): Promise<void> {
    if (attempt !== this.current || !this.connected) return Promise.resolve();
    const running = this.relisting.join();
    if (running) return running;
    const listing = this.relisting.start(async () => {
      const listed = await listTools(attempt.client, this.server.listing);
      if (attempt !== this.current) return false;
      this.list.take(listed);
      if (this.status.state === 'connected') this.events.onChange();
      return true;
    });
    // A failed re-list after the handshake keeps the last list; the first one fails the attempt.
    return listing.catch((error) => {
      if (this.status.state !== 'connected') throw error;
      this.events.onLog(this.list.relistFailed(this.server.name, (error as Error)?.message ?? String(error)));
      this.events.onChange();
    });
  }
}

/**
 * The OAuth client of an HTTP server: its tokens in the user's state folder (the user's env, never the host's), its
 * client secret from the host's env.
 */
function serverOAuth(server: ResolvedServer, env: Record<string, string | undefined>, clock: Clock): ServerOAuth {
  const { url, oauth } = server.http!;
  const stateDir = userStateDir(process.env);
  const store = new OAuthState(
    server.name,
    url.href,
    stateDir ? oauthFile(stateDir, server.name, url.href) : undefined,
  );
  return new ServerOAuth({ name: server.name, url, settings: oauth!, env, clock }, store);
}
