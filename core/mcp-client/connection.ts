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
 */
import type { ChildProcess } from 'node:child_process';
import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  type ClientOptions,
  type ConnectOptions,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  clientCapabilities,
  offered,
  SERVER_LOG_LEVEL,
  ServerRequests,
  type ClientAnswerers,
} from './server-requests.js';
import { TOOLSHED_VERSION } from '../../boundary/version.js';
import { pinnedFetch } from './pinned-fetch.js';
import { answers, probeDelay, sessionEnded, transportFailure } from './probe.js';
import { systemClock, timers, type TimerHandle, type Timers } from '../state/clock.js';
import type { Clock } from '../state/clock.js';
import { planStdioLaunch, type LaunchContext, type StdioLaunch } from './launch.js';
import { killTree, watchResources } from '../../boundary/launch/resource-watch.js';
import { overLimitMessage, SIGXFSZ_EXIT } from '../../boundary/launch/resources.js';
import type { ResolvedServer } from './config.js';
import type { ConnectionReport, ConnectionState } from '../runners/connection-report.js';
import type { UpstreamTool } from './tools.js';
import { listTools, ListingTimeout, type Listing } from './listing.js';
import type { LogLevel } from '../../boundary/server-requests.js';
import { callsAsTasks } from './task-call.js';
import { needsAuthorization, ServerOAuth } from './oauth-client.js';
import { OAuthState, oauthFile } from './oauth-state.js';
import { userStateDir } from '../state/user-dirs.js';
import { redactUrl, redactUrlsIn } from '../text/redact-url.js';

/**
 * The SDK's stdio transport under another name. The SDK probes the era of a server on its own
 * `StdioClientTransport` in a sibling process started beside it, outside the host's watchdog; a
 * subclass is probed in place, in the one sandboxed process toolshed started and watches.
 */
class InPlaceStdioTransport extends StdioClientTransport {}

/** The longest a stdio server may stay silent on `server/discover` before it is taken for a 2025 one. */
const PROBE_TIMEOUT_MS = 5_000;

/** The first restart waits this long; each further one twice as long, up to the cap. */
const RESTART_INITIAL_MS = 500;
/** The longest wait between two restarts. */
const RESTART_MAX_MS = 30_000;
/** A connection that stayed up this long starts the backoff from the beginning again. */
const STABLE_MS = 10_000;
/** Bytes of a server's stderr kept for explain. */
const STDERR_TAIL = 2_000;
/** A re-list waits this long after the last list_changed, so a burst costs one listing. */
const RELIST_DEBOUNCE_MS = 250;
/** ...but never longer than this after the first unanswered one, so a storm still re-lists. */
const RELIST_MAX_WAIT_MS = 2_000;

/** Where a connection reports to. */
interface ConnectionEvents {
  /** the state or the tool list changed */
  onChange(): void;
  /** a line the server wrote to stderr, or a note about its connection */
  onLog(message: string): void;
  /** a log message the server sent that belongs to no call */
  onServerLog?(entry: { message: string; level: LogLevel; logger?: string }): void;
}

interface Attempt {
  id: number;
  client: Client;
  pid?: number;
  /** what it wrote to stderr since its handshake began, or since it completed (the part that explains a stop) */
  recent: string;
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  /** why the host's watchdog stopped it ("it went over its memory limit of …") */
  stopped?: string;
  /** stops the watchdog */
  unwatch?: () => void;
  /** the SDK closed the transport while the server still ran (a failed handshake): its exit then is not the reason */
  closedFirst?: boolean;
  /** the probe in flight (HTTP), which transport errors of calls wait on instead of sending their own */
  probing?: Promise<void>;
  /** its transport: closed by close() itself, since the SDK's client knows it only once its handshake is under way */
  transport?: Transport;
}

/** The wait before restart number `failures + 1`: 500 ms, doubling, capped at 30 s. */
export function restartDelay(failures: number): number {
  return Math.min(RESTART_MAX_MS, RESTART_INITIAL_MS * 2 ** failures);
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

function exitText(exit: Attempt['exit']): string {
  if (!exit) return 'exited';
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

/** An error in words; a JSON-RPC error from the server keeps its code, as operators have read it so far. */
export function errorText(error: unknown): string {
  if (error instanceof ProtocolError) return `MCP error ${error.code}: ${error.message}`;
  return (error as Error)?.message ?? String(error);
}

/** One server's client, kept connected. */
export class McpConnection {
  private state: ConnectionState;
  private reason: string | undefined;
  private current: Attempt | undefined;
  private connected: Client | undefined;
  private attemptIds = 0;
  private failures = 0;
  private restarts = 0;
  private connectedAt = 0;
  private timer: TimerHandle | undefined;
  /** the next probe of a connected HTTP server */
  private probeTimer: TimerHandle | undefined;
  /** aborts the probe of an unreachable server's URL when the host closes */
  private readonly closing = new AbortController();
  private listing: Promise<void> | undefined;
  private dirty = false;
  private relistTimer: TimerHandle | undefined;
  /**
   * restarts, probes and re-listings wait on the host's clock (real timers unref'd: they alone must not keep a finished
   * CLI run alive)
   */
  private readonly timers: Timers;
  /** when the oldest list_changed not yet answered by a listing arrived */
  private changedSince: number | undefined;
  /** what the last listing cut or left out, for explain */
  private notes: string[] = [];
  private closed = false;
  private stderrTail = '';
  private serverInfo: { name: string; version: string } | undefined;
  private launch: StdioLaunch | undefined;
  /** a stdio server that exited on the `server/discover` probe: spoken to in the 2025 era from then on */
  private legacyOnly = false;
  private protocolVersion: string | undefined;
  /** its log messages and requests, routed to the calls and answerers */
  readonly requests: ServerRequests;
  /** output schemas by the server's own tool name, as last listed */
  outputSchemas = new Map<string, object>();
  /** the server's own names of the tools that must be called as tasks, as last listed */
  private taskTools = new Set<string>();
  /** the tools as the server last listed them */
  tools: UpstreamTool[] = [];
  /**
   * whether the server has listed its tools yet (before that, `tools` is empty because nothing was heard, not because
   * it lists none)
   */
  listed = false;
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
    this.requests = this.serverRequests();
    this.state = server.notStarted ? 'not started' : 'connecting';
    this.reason = server.notStarted ?? `the MCP server ${server.name} is starting`;
    if (server.stdio) this.launch = planStdioLaunch(server, context);
    if (server.http?.oauth) this.oauth = serverOAuth(server, context.env, clock);
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
      { capabilities: clientCapabilities(this.answerers), ...this.negotiation() },
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
    return this.taskTools.has(name);
  }

  /** Whether the connection speaks 2026-07-28 (a log level then rides on each request). */
  modern(): boolean {
    return this.connected?.getProtocolEra() === 'modern';
  }

  /** Why the server's tools are hidden (undefined while connected). */
  why(): string | undefined {
    return this.state === 'connected' ? undefined : this.reason;
  }

  /**
   * Why a call's error means the request did not reach this HTTP server (in words), or undefined when
   * the server answered it. The connection stays up: a session the server ended is initialized again
   * at once, and anything else is probed, the tools hidden only when the probe gets no answer either.
   */
  transportError(error: unknown): string | undefined {
    if (!this.server.http) return undefined;
    const attempt = this.current;
    const connected = attempt !== undefined && this.connected === attempt.client && this.state === 'connected';
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
    const report: ConnectionReport = {
      transport: this.server.stdio ? 'stdio' : 'http',
      state: this.state,
      target: this.server.stdio
        ? [this.server.stdio.command, ...this.server.stdio.args].join(' ')
        : redactUrl(this.server.http!.url),
      restarts: this.restarts,
      renamed: {},
      warnings: this.notes.map(redactUrlsIn),
    };
    if (this.state !== 'connected' && this.reason) report.reason = redactUrlsIn(this.reason);
    if (this.serverInfo) report.server = this.serverInfo;
    if (this.current?.pid !== undefined && !this.current.exit) report.pid = this.current.pid;
    if (this.launch) report.protections = this.launch.protections;
    if (this.launch?.runs) report.runs = this.launch.runs;
    if (this.stderrTail) report.stderr = this.stderrTail;
    if (this.protocolVersion) report.protocolVersion = this.protocolVersion;
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
    this.timers.cancel(this.probeTimer);
    this.timers.cancel(this.relistTimer);
    this.closing.abort();
    const attempt = this.current;
    this.current = undefined;
    this.connected = undefined;
    this.state = 'closed';
    this.reason = 'the host is closed';
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
    this.state = state;
    this.reason = reason;
    this.events.onChange();
  }

  private transport(attempt: Attempt): Transport {
    attempt.transport = this.newTransport(attempt);
    return attempt.transport;
  }

  private newTransport(attempt: Attempt): Transport {
    if (this.server.http) {
      const { url, headers } = this.server.http;
      return new StreamableHTTPClientTransport(url, {
        requestInit: { headers },
        fetch: pinnedFetch(url),
        ...(this.oauth ? { authProvider: this.oauth.transportAuth() } : {}),
      });
    }
    const launch = this.launch!;
    const transport = new InPlaceStdioTransport({
      command: launch.command,
      args: launch.args,
      env: launch.env,
      cwd: launch.cwd,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => this.stderr(attempt, chunk.toString('utf8')));
    const close = transport.close.bind(transport);
    transport.close = () => {
      if (!attempt.exit) attempt.closedFirst = true;
      return close();
    };
    const start = transport.start.bind(transport);
    transport.start = async () => {
      if (this.closed) throw new Error('the host is closed');
      const started = start();
      // The SDK keeps the child private and drops its exit code; the code is what tells an operator why it stopped.
      const child = (transport as unknown as { _process?: ChildProcess })._process;
      child?.once('exit', (code, signal) => this.exited(attempt, { code, signal }));
      if (child?.pid !== undefined) {
        attempt.pid = child.pid;
        this.watch(attempt, child.pid);
      }
      return started;
    };
    return transport;
  }

  /** Holds an untrusted server to its `resources`: past one, its whole process tree is killed and the reason kept. */
  private watch(attempt: Attempt, pid: number): void {
    const limits = this.launch?.resources;
    if (!limits) return;
    attempt.unwatch = watchResources(pid, limits, (over) => {
      attempt.stopped = overLimitMessage(over.limit, limits, over.seen);
      this.events.onLog(`the MCP server ${this.server.name} was stopped by toolshed: ${attempt.stopped}`);
      killTree(pid);
    });
  }

  private exited(attempt: Attempt, exit: NonNullable<Attempt['exit']>): void {
    attempt.exit = exit;
    attempt.unwatch?.();
    const limits = this.launch?.resources;
    // A write past RLIMIT_FSIZE kills a process with SIGXFSZ (a launcher reports it as 128 + 25).
    if (limits && !attempt.stopped && (exit.signal === 'SIGXFSZ' || exit.code === SIGXFSZ_EXIT))
      attempt.stopped = overLimitMessage('fileSizeMb', limits);
  }

  /** How an attempt ended, in words: the limit it was stopped at, or its exit and last stderr line. */
  private ending(attempt: Attempt): string {
    if (attempt.stopped) return `was stopped by toolshed: ${attempt.stopped}`;
    return `${exitText(attempt.exit)}${this.lastStderrLine(attempt)}`;
  }

  private stderr(attempt: Attempt, text: string): void {
    this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL);
    attempt.recent = (attempt.recent + text).slice(-STDERR_TAIL);
    for (const line of text.split('\n')) if (line.trim()) this.events.onLog(line.trimEnd());
  }

  private lastStderrLine(attempt: Attempt): string {
    const lines = attempt.recent.trim().split('\n');
    const last = lines[lines.length - 1]?.trim();
    return last ? `: ${last.slice(0, 300)}` : '';
  }

  /** How the era is chosen: as configured, and 2025 only for a stdio server that exited on the probe. */
  private negotiation(): Pick<ClientOptions, 'versionNegotiation'> {
    const choice = this.server.protocol;
    if (choice === 'legacy' || this.legacyOnly) return { versionNegotiation: { mode: 'legacy' } };
    if (choice === '2026-07-28') return { versionNegotiation: { mode: { pin: '2026-07-28' } } };
    const timeoutMs = this.server.stdio
      ? Math.min(PROBE_TIMEOUT_MS, this.server.startTimeoutMs)
      : this.server.startTimeoutMs;
    return { versionNegotiation: { mode: 'auto', probe: { timeoutMs } } };
  }

  private async connect(): Promise<void> {
    const id = ++this.attemptIds;
    const client = new Client(
      { name: 'toolshed', version: TOOLSHED_VERSION },
      {
        capabilities: clientCapabilities(this.answerers),
        ...this.negotiation(),
        listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => this.listChanged(attempt) } },
      },
    );
    const attempt: Attempt = { id, client, recent: '' };
    this.requests.install(client);
    this.current = attempt;
    client.onclose = () => this.onClosed(attempt);
    client.onerror = (error) => {
      this.dropped.count++;
      this.dropped.last = error.message;
    };
    try {
      const options: ConnectOptions = { timeout: this.server.startTimeoutMs };
      await client.connect(this.transport(attempt), options);
      if (attempt !== this.current) return;
      const info = client.getServerVersion();
      if (info) this.serverInfo = { name: info.name, version: info.version };
      this.protocolVersion = client.getNegotiatedProtocolVersion();
      this.connected = client;
      await this.askForLogs(client);
      await this.relist(attempt);
      if (attempt !== this.current) return;
      this.connectedAt = this.timers.now();
      // Start-up chatter does not explain a later exit.
      attempt.recent = '';
      this.setState('connected');
      this.scheduleProbe(attempt);
    } catch (error) {
      if (attempt !== this.current) return;
      // A stdio server that exits on a request before `initialize` (servers on some SDKs do) is a 2025 one: start it
      // again, without the probe.
      if (this.probeKilled(attempt, error)) return this.withoutProbe(attempt);
      this.fail(attempt, error);
    }
  }

  /** Starts the server again right away, in the 2025 era from now on: it exited on the probe. */
  private withoutProbe(attempt: Attempt): Promise<void> {
    this.legacyOnly = true;
    this.events.onLog(
      `the MCP server ${this.server.name} exited on the server/discover probe: it is spoken to in the 2025 era from now on`,
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
    const authorization = needsAuthorization(error);
    if (authorization) return this.awaitAuthorization(attempt, authorization.reason);
    if (error instanceof ListingTimeout && !attempt.exit) return this.drop(attempt, 'timed out', error.message);
    if (attempt.stopped) return this.drop(attempt, 'exited', `${this.ending(attempt)} during the handshake`);
    if (attempt.exit && !attempt.closedFirst)
      return this.drop(
        attempt,
        'exited',
        `${exitText(attempt.exit)} during the handshake${this.lastStderrLine(attempt)}`,
      );
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
      return this.drop(
        attempt,
        'timed out',
        `did not answer the handshake within ${this.server.startTimeoutMs} ms (limits.loadTimeoutMs)`,
      );
    if (error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed)
      return this.drop(
        attempt,
        'handshake failed',
        `could not agree on an MCP revision (protocol: ${this.server.protocol}): ${error.message}`,
      );
    const network = transportFailure(error);
    if (network) return this.drop(attempt, 'unreachable', `is unreachable: ${network}`);
    const message = errorText(error);
    const code = (error as { code?: unknown })?.code;
    if (code === 'ENOENT' || code === 'EACCES')
      return this.drop(attempt, 'handshake failed', `could not be started: ${message}`);
    this.drop(attempt, 'handshake failed', `failed its handshake: ${message}${this.lastStderrLine(attempt)}`);
  }

  /** The transport closed: after a handshake, that is the server going away. */
  private onClosed(attempt: Attempt): void {
    if (attempt !== this.current || this.closed || this.connected !== attempt.client) return;
    this.drop(attempt, 'exited', this.ending(attempt));
  }

  /** Lets go of `attempt`: its client closed, its timers stopped, nothing connected. */
  private abandon(attempt: Attempt): void {
    this.current = undefined;
    this.timers.cancel(this.relistTimer);
    this.timers.cancel(this.probeTimer);
    this.changedSince = undefined;
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
    if (this.connectedAt && this.timers.now() - this.connectedAt >= STABLE_MS) this.failures = 0;
    this.connectedAt = 0;
    const http = this.server.http;
    const outage = http !== undefined && state === 'unreachable' && !how.reinitialize;
    const delay = how.reinitialize || outage ? 0 : restartDelay(this.failures++);
    const next = how.reinitialize
      ? 'initializing a new session'
      : outage
        ? `reconnecting as soon as it answers a probe (one every ${seconds(http.probeIntervalMs)} to ${seconds(http.probeIntervalMs * 1.5)})`
        : `${http ? 'reconnecting' : 'restarting'} in ${seconds(delay)}`;
    const reason = `the MCP server ${this.server.name} ${why}; ${next}`;
    this.events.onLog(reason);
    this.setState(state, reason);
    const retry = () => {
      this.restarts++;
      this.state = 'connecting';
      this.reason = `the MCP server ${this.server.name} is ${http ? 'reconnecting' : 'restarting'} (it ${why})`;
      void this.connect();
    };
    if (how.reinitialize) return retry();
    if (outage) return this.awaitAnswer(retry);
    // A pending restart alone must not keep a finished CLI run alive (the timers are unref'd).
    this.timer = this.timers.after(delay, retry);
  }

  /**
   * Gives up on `attempt` until a login: the tools hidden with `reason` (which names `toolshed auth
   * NAME`), no request sent, the token file checked once per probe interval, and a new handshake
   * as soon as it holds tokens it did not hold before.
   */
  private awaitAuthorization(attempt: Attempt, reason: string): void {
    this.abandon(attempt);
    if (this.closed) return;
    this.connectedAt = 0;
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
      this.restarts++;
      this.state = 'connecting';
      this.reason = `the MCP server ${this.server.name} is reconnecting (new tokens were stored)`;
      void this.connect();
    });
  }

  /**
   * While an HTTP server is unreachable: one small request to its URL per probe interval; the first answer starts
   * `reconnect`.
   */
  private awaitAnswer(reconnect: () => void): void {
    const { url, headers, probeIntervalMs } = this.server.http!;
    this.timer = this.timers.after(probeDelay(probeIntervalMs), async () => {
      const signal = AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.server.startTimeoutMs)]);
      const back = await answers(url, headers, signal);
      if (this.closed) return;
      if (back) reconnect();
      else this.awaitAnswer(reconnect);
    });
  }

  /** The next probe of a connected HTTP server, one probe interval (with jitter) from now. */
  private scheduleProbe(attempt: Attempt): void {
    const http = this.server.http;
    if (!http || attempt !== this.current || this.closed) return;
    this.timers.cancel(this.probeTimer);
    this.probeTimer = this.timers.after(probeDelay(http.probeIntervalMs), () => void this.probe(attempt));
  }

  /**
   * Asks the connected server for a cheap answer; a probe that gets none is sent once more right
   * away (behind a balancer the next request goes to another replica), and a second one without
   * an answer drops the connection, hiding the tools with the reason.
   */
  private probe(attempt: Attempt): Promise<void> {
    this.timers.cancel(this.probeTimer);
    attempt.probing ??= (async () => {
      const why = (await this.ping(attempt)) && (await this.ping(attempt));
      if (!why || attempt !== this.current || this.connected !== attempt.client) return;
      if (why.authorization) this.awaitAuthorization(attempt, why.text);
      else this.drop(attempt, 'unreachable', why.text, { reinitialize: why.reinitialize });
    })().finally(() => {
      attempt.probing = undefined;
      this.scheduleProbe(attempt);
    });
    return attempt.probing;
  }

  /**
   * One probe (`ping`; `server/discover` on 2026-07-28, which has no ping): undefined when the server answered, even
   * with an error.
   */
  private async ping(
    attempt: Attempt,
  ): Promise<{ text: string; reinitialize: boolean; authorization?: boolean } | undefined> {
    const { client } = attempt;
    const options = { timeout: this.server.startTimeoutMs };
    try {
      await (client.getProtocolEra() === 'modern' ? client.discover(options) : client.ping(options));
      return undefined;
    } catch (error) {
      const authorization = needsAuthorization(error);
      if (authorization) return { text: authorization.reason, reinitialize: false, authorization: true };
      if (sessionEnded(error)) return { text: 'ended its session', reinitialize: true };
      const failure = transportFailure(error);
      if (failure) return { text: `is unreachable: ${failure}`, reinitialize: false };
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
        return {
          text: `is unreachable: it did not answer a probe within ${this.server.startTimeoutMs} ms (limits.loadTimeoutMs)`,
          reinitialize: false,
        };
      }
      return undefined;
    }
  }

  /**
   * A list_changed: re-list once the notifications pause for RELIST_DEBOUNCE_MS, or
   * RELIST_MAX_WAIT_MS after the first one not yet listed, whichever is first.
   */
  private listChanged(attempt: Attempt): void {
    if (attempt !== this.current || this.closed) return;
    const now = this.timers.now();
    this.changedSince ??= now;
    this.timers.cancel(this.relistTimer);
    const wait = Math.max(0, Math.min(RELIST_DEBOUNCE_MS, this.changedSince + RELIST_MAX_WAIT_MS - now));
    this.relistTimer = this.timers.after(wait, () => {
      this.changedSince = undefined;
      void this.relist(attempt).catch(() => {});
    });
  }

  /** Lists the tools within the listing limits; asked again while listing, it lists once more after. */
  private relist(attempt: Attempt): Promise<void> {
    if (attempt !== this.current || !this.connected) return Promise.resolve();
    if (this.listing) {
      this.dirty = true;
      return this.listing;
    }
    const run = async () => {
      do {
        this.dirty = false;
        const listing = await listTools(attempt.client, this.server.listing);
        if (attempt !== this.current) return;
        this.take(attempt, listing);
        if (this.state === 'connected') this.events.onChange();
      } while (this.dirty);
    };
    this.listing = run().finally(() => {
      this.listing = undefined;
    });
    // A failed re-list after the handshake keeps the last list; the first one fails the attempt.
    return this.listing.catch((error) => {
      if (this.state !== 'connected') throw error;
      const message = `re-listing tools of ${this.server.name} failed, the last list is kept: ${(error as Error)?.message ?? String(error)}`;
      this.notes = [...this.notes.filter((note) => !note.startsWith('re-listing tools of ')), message];
      this.events.onLog(message);
      this.events.onChange();
    });
  }

  private take(_attempt: Attempt, listing: Listing): void {
    this.tools = listing.tools;
    this.listed = true;
    this.notes = listing.notes;
    this.outputSchemas = listing.outputSchemas;
    this.taskTools = new Set(
      listing.tools.filter((tool) => tool.execution?.taskSupport === 'required').map((tool) => tool.name),
    );
  }

  /** Whether the server exited during the era probe (auto mode, stdio, not yet retried without it). */
  private probeKilled(attempt: Attempt, error: unknown): boolean {
    if (!this.server.stdio || this.server.protocol !== 'auto' || this.legacyOnly || this.closed || attempt.stopped)
      return false;
    // The transport reports its close after the child's exit, so a probe the server died on has its exit recorded.
    return (
      error instanceof SdkError &&
      error.code === SdkErrorCode.EraNegotiationFailed &&
      attempt.exit !== undefined &&
      !attempt.closedFirst
    );
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
