/**
 * The requests of `serve --http` that no MCP session of this replica serves: every 2026-07-28
 * request, and with `--stateless` every request of both eras. Each is served by a server of its
 * own in one shared per-request session, whose held calls are recorded in the state store so a
 * retry on another replica of a fleet reaches them (sessions/shared-rounds.ts). A 2025-era client
 * of a stateless server is issued a session id at initialize, and what it declared is kept in the
 * store (sessions/stateless-clients.ts); a listen stream that names a session is that session's
 * own (sessions/session-streams.ts), and hears the searches that loaded tools into it on any replica.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, isInitializeRequest, isLegacyRequest, type Server } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { buildMcpServer, type ServerOptions } from '../protocol/server.js';
import { closeSession, requestScopedSession, type McpSession } from '../protocol/session.js';
import { NO_CHANGES, type ChangeSource } from '../protocol/changes.js';
import { SharedRounds } from '../sessions/shared-rounds.js';
import { isListenRequest, SessionStreams } from '../sessions/session-streams.js';
import { StatelessClients } from '../sessions/stateless-clients.js';
import { ownerKey } from '../../http/caller.js';
import type { FrontDoor } from '../../http/front-door.js';
import { FOREIGN_SESSION, MAX_BODY_BYTES, reply, SERVER_ERROR, wantsStream } from './http-replies.js';
import type { Identity } from '../../../boundary/identity.js';
import type { ToolHost } from '../../host/host.js';

/**
 * The store channel on which a replica tells the fleet that a search loaded tools into a session (the message is its
 * id).
 */
const LOADED_CHANNEL = 'search:loaded';

/** What the per-request servers are made with. */
interface PerRequestSettings {
  /** what every server is made with (besides its session, changes and fleet parts) */
  serverOptions: Omit<ServerOptions, 'session' | 'changes' | 'shared' | 'statelessClients'>;
  /** the host's list changes, shared by every server of the endpoint */
  changes: ChangeSource;
  /** the most listen streams open at once */
  maxStreams: number;
  onError(error: unknown): void;
}

/** The servers made per request, and what they share across a fleet. */
export class PerRequestServers {
  // Requests with no session of their own (2026-07-28, --stateless): a server each, their held calls kept
  // here and recorded in the state store, so a retry on another replica of a fleet reaches them.
  private readonly session: McpSession;
  private readonly shared: SharedRounds;
  // A 2025-era client of a stateless server: what its initialize declared, kept in the store.
  private readonly clients: StatelessClients;
  private readonly modern: ReturnType<typeof createMcpHandler>;
  private readonly streams: SessionStreams;
  /** serves a 2026-07-28 request */
  readonly serveModern: ReturnType<typeof toNodeHandler>;
  private unlistenModern = () => {};
  private unlistenLoaded = async () => {};

  constructor(
    private readonly host: ToolHost,
    private readonly door: FrontDoor,
    private readonly settings: PerRequestSettings,
  ) {
    const { onError } = settings;
    this.session = requestScopedSession('per-request', host.clock);
    this.shared = new SharedRounds(this.session.rounds, host.state, this.session.rounds.idleMs, onError);
    this.clients = new StatelessClients(host.state, host.config.state.sessionTtlMs, onError);
    this.modern = createMcpHandler(({ era }) => this.server(era), {
      // 2025-era requests never reach it (serveLegacyOnce or a session serves them); its 'auto' replies are JSON until
      // a
      // call emits.
      legacy: 'reject',
      maxRequestBodySize: MAX_BODY_BYTES,
      onerror: onError,
    });
    this.serveModern = toNodeHandler(this.modern, { onerror: onError });
    this.streams = new SessionStreams(
      () => this.server('modern'),
      { maxBodyBytes: MAX_BODY_BYTES, maxStreams: settings.maxStreams },
      onError,
    );
  }

  /** Starts answering other replicas' held rounds and hearing the fleet's searches. */
  async start(): Promise<void> {
    const { host } = this;
    const { onError } = this.settings;
    await this.shared.start();
    // A 2026-07-28 client hears of list changes on its subscriptions/listen stream: host-wide ones on
    // every stream, a search's on the streams of the session that searched (on whichever replica).
    this.unlistenModern = this.settings.changes((event) => {
      if (event.kind === 'change') {
        this.modern.notify.toolsChanged();
        this.streams.toolsChanged();
      } else if (event.sessionId !== undefined) void host.state.publish(LOADED_CHANNEL, event.sessionId).catch(onError);
    });
    this.unlistenLoaded = await host.state
      .subscribe(LOADED_CHANNEL, (sessionId) => this.streams.toolsChanged(sessionId))
      .catch((error: unknown) => {
        onError(error);
        return async () => {};
      });
  }

  /**
   * A POST to a stateless endpoint. A 2025-era initialize is issued a session id (a client of that era
   * sends one only when the server gave it one), with what it declared kept in the store; a listen
   * stream that names a session is that session's own (session-streams.ts).
   */
  async serveStateless(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    caller: Identity | undefined,
  ): Promise<void> {
    const named = req.headers['mcp-session-id'];
    if (caller && typeof named === 'string') {
      const mine = await this.mayUse(named, caller);
      if (mine === undefined)
        return reply(
          res,
          503,
          'Cannot tell whose session this is: the state store did not answer; retry later',
          SERVER_ERROR,
          { 'retry-after': '5' },
        );
      if (!mine) return this.door.refuse(req, res, 403, FOREIGN_SESSION, caller);
    }
    if (typeof named === 'string' && isListenRequest(body)) {
      if (!(await this.streams.serve(named, req, res, body)))
        reply(res, 503, 'Too many listen streams open; close one or retry later', SERVER_ERROR, { 'retry-after': '5' });
      return;
    }
    if (isInitializeRequest(body)) await this.issue(res, body, typeof named === 'string' ? named : undefined, caller);
    if (await isLegacyRequest(await toWebRequest(req, body), body))
      return this.serveLegacyOnce(this.server('legacy'), req, res, body);
    return this.serveModern(req, res, body);
  }

  /** Ends every per-request server, stream and fleet subscription. */
  async close(): Promise<void> {
    this.unlistenModern();
    closeSession(this.session);
    await Promise.allSettled([this.modern.close(), this.streams.close(), this.shared.close(), this.unlistenLoaded()]);
  }

  /**
   * Records what a 2025-era initialize declared; a client that brings its own id keeps it, one that brings none is
   * issued one.
   */
  private async issue(
    res: ServerResponse,
    initialize: Parameters<StatelessClients['opened']>[0],
    named: string | undefined,
    caller: Identity | undefined,
  ): Promise<void> {
    const id = await this.clients.opened(initialize, named);
    if (named !== undefined) return;
    res.setHeader('mcp-session-id', id);
    // A new id is its caller's from the start (a store that failed now lets its next use claim it).
    if (caller) await this.mayUse(id, caller);
  }

  /**
   * Whether `caller` may use the stateless session `id` (it is its own, or no one's yet); undefined when the store
   * cannot tell.
   */
  private async mayUse(id: string, caller: Identity): Promise<boolean | undefined> {
    try {
      return await this.clients.claim(id, ownerKey(caller));
    } catch (error) {
      this.settings.onError(error);
      return undefined;
    }
  }

  /** A server for one request of `era`, in the per-request session. */
  private server(era: 'legacy' | 'modern'): Server {
    return buildMcpServer(this.host, {
      ...this.settings.serverOptions,
      session: this.session,
      changes: NO_CHANGES,
      ...(era === 'legacy' ? { statelessClients: this.clients } : { shared: this.shared }),
    });
  }

  /**
   * Serves a 2025-era request with no session: a server and transport of its own, plain JSON unless the call streams
   * progress.
   */
  private async serveLegacyOnce(
    server: Server,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ): Promise<void> {
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !wantsStream(body),
    });
    res.once('close', () => {
      transport.close().catch(() => {});
      server.close().catch(() => {});
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}
