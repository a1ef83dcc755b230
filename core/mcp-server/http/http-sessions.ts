/**
 * The life of a 2025-era MCP session on `serve --http`: an `initialize` without a session id is
 * admitted (the session caps, sessions/session-table.ts) and gets an SDK server and transport of
 * its own, whose session id names the replica that issued it; later requests that name it are
 * served by its transport, only for the identity that opened it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { buildMcpServer, type ServerOptions } from '../protocol/server.js';
import { requestScopedSession } from '../protocol/session.js';
import type { SessionTable } from '../sessions/session-table.js';
import { ownerKey } from '../../http/caller.js';
import type { FrontDoor } from '../../http/front-door.js';
import { FOREIGN_SESSION, INVALID_REQUEST, reply, sessionGone } from './http-replies.js';
import { callerIdentity } from '../../call/dispatch.js';
import { matchRule } from '../../access/rules.js';
import type { Identity } from '../../../boundary/identity.js';
import type { ToolHost } from '../../host/host.js';

/** What the body reader returns once it answered the request itself. */
export const NO_BODY = Symbol('no body');

/** The sessions of one endpoint, opened and served. */
export class HttpSessions {
  constructor(
    private readonly host: ToolHost,
    private readonly door: FrontDoor,
    readonly table: SessionTable,
    /** what every session's server is made with (besides its session) */
    private readonly serverOptions: Omit<ServerOptions, 'session'>,
    private readonly settings: { replica?: string | undefined; onError(error: unknown): void },
  ) {}

  /**
   * Serves a request that names session `id`: 404 when it is gone, 403 when `caller` did not open it; a POST's body
   * is read (`readBody`) so the request log can name its method and tool.
   */
  async serve(
    req: IncomingMessage,
    res: ServerResponse,
    id: string,
    caller: Identity | undefined,
    readBody: () => Promise<unknown>,
  ): Promise<void> {
    const session = this.table.get(id);
    // 404 tells the client its session is gone and it should initialize again (spec, session management).
    if (!session) return reply(res, 404, sessionGone(id, this.settings.replica));
    if (session.owner !== ownerKey(caller)) return this.door.refuse(req, res, 403, FOREIGN_SESSION, caller);
    this.table.track(session, req.method, res);
    if (req.method !== 'POST') return session.transport.handleRequest(req, res);
    const body = await readBody();
    if (body === NO_BODY) return;
    return session.transport.handleRequest(req, res, body);
  }

  /** Opens a session for an `initialize` (anything else: 400), within the caps; a refused one leaves nothing open. */
  async open(req: IncomingMessage, res: ServerResponse, body: unknown, caller: Identity | undefined): Promise<void> {
    if (!isInitializeRequest(body))
      return reply(res, 400, 'Bad Request: no valid session id; start with initialize', INVALID_REQUEST);
    const client = this.door.client(req);
    const owner = ownerKey(caller);
    const admission = await this.table.admit(client, {
      key: owner,
      max: caller && matchRule(this.host.config.access, caller)?.rule.quota?.sessions,
    });
    if ('status' in admission)
      return this.door.refuse(req, res, admission.status, admission.message, caller, { 'retry-after': '5' });
    const session = requestScopedSession('http-session', this.host.clock);
    const { replica } = this.settings;
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => (replica === undefined ? randomUUID() : `${replica}.${randomUUID()}`),
      onsessioninitialized: (id: string): void => {
        admission.release();
        this.door.log.note(req, { session: id });
        this.table.add(id, {
          server,
          transport,
          session,
          client,
          owner,
          ...(caller ? { identity: callerIdentity(caller) } : {}),
        });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.table.delete(transport.sessionId);
    };
    transport.onerror = this.settings.onError;
    // The toolshed session is the MCP session: its id is read from each request (the transport's).
    const server = buildMcpServer(this.host, { ...this.serverOptions, session });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      admission.release();
    }
    // A refused initialize (bad protocol version) leaves no session: drop its server now.
    if (transport.sessionId === undefined || !this.table.get(transport.sessionId)) await server.close();
  }
}
