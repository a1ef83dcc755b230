/**
 * `toolshed serve --http`: Streamable HTTP on node:http at `/mcp`, both
 * protocol eras on one endpoint. A 2026-07-28 request (it carries the
 * per-request `_meta` envelope) is served by the SDK's `createMcpHandler`
 * from a server made for it; a 2025-era client gets a session (one SDK
 * server and transport per `Mcp-Session-Id`, as before), or with
 * `--stateless` a server per request for both eras (a 2025-era client is
 * issued a session id at initialize, and what it declared is kept in the
 * state store, so any replica of a fleet serves it as one session; a held
 * call is answerable on any replica, shared-rounds.ts). Replies are plain
 * JSON unless the exchange streams (http-replies.ts), so a reply cut by a
 * dying replica fails its call at once. Every request's `Origin` is
 * validated (http-access.ts), a bearer token is required when one is
 * configured, and when bound to loopback the Host header is checked against
 * the bound address and the public URLs behind a reverse proxy, so a web
 * page cannot reach the server through DNS rebinding. With `serve.auth`
 * every request carries an OAuth access token instead (http-auth.ts): its
 * identity's view (`host.as`, identity-views.ts) serves the request, and the
 * sessions it opens are its own (a session id presented with another
 * identity's token is refused, on a stateless fleet too). Sessions expire
 * when idle and are capped in all, per client and per identity
 * (http-sessions.ts); their ids name the replica that issued them when it
 * has a name. All of them share one listener on the host. `/healthz`,
 * `/readyz` and `/metrics` (ops.ts) answer outside the bearer auth when the
 * ops endpoints are on.
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type AuthInfo,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { closeSession, createMcpServer, requestScopedSession, sharedChanges, type ChangeSource } from './server.js';
import { startRefreshLoop } from './refresh-loop.js';
import { isLoopback, type ListenAddress } from './address.js';
import { clientOf, hasBearer, loopbackHosts, normalizeAddress, originRefusal, publicHosts } from './http-access.js';
import { sendResponse, sessionGone, wantsStream } from './http-replies.js';
import { callerOf, identityOf, ownerKey } from './caller.js';
import { IdentityViews } from './identity-views.js';
import type { ResourceServer } from './http-auth.js';
import { SessionTable, type SessionSnapshot } from './http-sessions.js';
import { callerIdentity } from '../call/dispatch.js';
import type { OpsEndpoints } from './ops.js';
import { SharedRounds } from './shared-rounds.js';
import { isListenRequest, SessionStreams } from './session-streams.js';
import { StatelessClients } from './stateless-clients.js';
import type { McpEndpoint } from './stdio.js';
import { matchRule } from '../access/rules.js';
import { ToolshedError, UsageError } from '../../boundary/errors.js';
import type { Identity } from '../../boundary/identity.js';
import type { ToolHost } from '../host/host.js';
import { recordRefusal } from '../host/inspector.js';

/** Where and how to listen. */
export interface HttpServeOptions extends ListenAddress {
  /** reports transport and request failures (default: ignored) */
  onError?(error: unknown): void;
  /** origins (`scheme://host[:port]`, normalized) allowed besides loopback ones */
  allowedOrigins?: readonly string[];
  /**
   * when set, every request must carry `Authorization: Bearer <token>` (not with the host's `serve.auth`, which checks
   * OAuth tokens instead)
   */
  bearerToken?: string;
  /** a session idle this long is closed (default: the host's `serve.sessionIdleMs`) */
  sessionIdleMs?: number;
  /** the most sessions at once (default: the host's `serve.maxSessions`) */
  maxSessions?: number;
  /** the most sessions one client may hold (default: the host's `serve.maxSessionsPerClient`) */
  maxSessionsPerClient?: number;
  /** serve /healthz, /readyz and /metrics (default: the host's `serve.ops`, else on when bound to loopback) */
  ops?: boolean;
  /** keep no per-client state: a server per request, for both eras */
  stateless?: boolean;
  /**
   * the URLs clients reach this server by through a reverse proxy: their hosts pass the loopback Host check (default:
   * the host's `serve.publicUrl`)
   */
  publicUrls?: readonly string[];
  /** this replica's name: it prefixes the session ids it issues (`NAME.uuid`), so a balancer can route on it */
  replica?: string;
  /**
   * reverse proxies whose `X-Forwarded-For` names the client, for the per-client session cap (default: the host's
   * `serve.trustedProxies`)
   */
  trustedProxies?: readonly string[];
  /** a handler served below a path of the same listener (the console at /ui/, `serve --ui`) */
  mount?: HttpMount;
  /** told of every request once it was answered (the request log) */
  onRequest?(entry: RequestLogEntry): void;
}

/**
 * A handler served below `prefix` on serve's listener, behind its Origin and Host checks; what
 * `isPublic` says of a path is served without authentication, everything else after it (with the
 * caller under `serve.auth`, refused like an MCP request when no access rule matches).
 */
export interface HttpMount {
  /** the path it is served below, with both slashes (`/ui/`) */
  prefix: string;
  /** whether a path below the prefix needs no token (the page's files) */
  isPublic(path: string): boolean;
  /** answers a request; `path` is below the prefix, `origins` the listener's own */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    request: { path: string; caller?: Identity; origins: ReadonlySet<string> },
  ): Promise<void>;
  /** answers a refusal of the listener's (401, 403…) in the mount's own shape */
  refuse(res: ServerResponse, status: number, message: string, headers?: Record<string, string>): void;
}

/** One answered request, as the request log prints it. */
export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  ms: number;
  /** the JSON-RPC method(s) of a POST body */
  rpc?: string;
  /** the tool a tools/call names */
  tool?: string;
  /** the MCP session it belongs to (or opened) */
  session?: string;
  /** who sent it (`clientOf`) */
  client: string;
}

/** A running HTTP endpoint and its URL (with the real port when 0 was asked). */
export interface HttpEndpoint extends McpEndpoint {
  url: string;
  /** sessions open now */
  readonly sessions: number;
  /** the sessions open now, as the console lists them */
  sessionList(): SessionSnapshot[];
}

/** MCP's endpoint path. */
export const MCP_PATH = '/mcp';

/** Request bodies above this are refused before parsing. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** JSON-RPC error codes this endpoint answers with itself. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const SERVER_ERROR = -32000;

function reply(
  res: ServerResponse,
  status: number,
  message: string,
  code = SERVER_ERROR,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** Why a challenge the SDK built refuses a token: its OAuth error description, else the error. */
async function challengeReason(response: Response): Promise<string> {
  const body = (await response
    .clone()
    .json()
    .catch(() => ({}))) as { error?: unknown; error_description?: unknown };
  return String(body.error_description ?? body.error ?? `HTTP ${response.status}`);
}

class BodyTooLarge extends Error {}

/** What the request log says of a JSON-RPC body: its method(s), and the tool a tools/call names. */
function rpcNote(body: unknown): Pick<RequestLogEntry, 'rpc' | 'tool'> {
  const messages = (Array.isArray(body) ? body : [body]) as Array<{
    method?: unknown;
    params?: { name?: unknown };
  } | null>;
  const methods = messages
    .map((m) => (typeof m?.method === 'string' ? m.method : undefined))
    .filter((m) => m !== undefined);
  const call = messages.find((m) => m?.method === 'tools/call' && typeof m.params?.name === 'string');
  return {
    ...(methods.length ? { rpc: methods.join(',') } : {}),
    ...(call ? { tool: call.params!.name as string } : {}),
  };
}

/** A request whose token was verified: the SDK's transports hand `auth` to the handlers. */
type AuthenticatedRequest = IncomingMessage & { auth?: AuthInfo };

/** The refusal of a session id presented by an identity that did not open it (who did is not said). */
const FOREIGN_SESSION =
  'Forbidden: this session belongs to another identity; start your own with initialize (without Mcp-Session-Id)';

/**
 * The body as JSON. Past MAX_BODY_BYTES it rejects with BodyTooLarge and leaves the request
 * flowing with no reader, so the rest of the body is read and dropped as it arrives: the
 * connection is never closed under a client that is still sending (see refuseTooLarge).
 */
function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      req.off('data', onData).off('end', onEnd);
      chunks.length = 0;
      reject(new BodyTooLarge(`request body over ${MAX_BODY_BYTES} bytes`));
    };
    const onEnd = () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    };
    req.on('data', onData).on('end', onEnd).once('error', reject);
  });
}

/**
 * How long a client refused with 413 may go on sending the rest of its body (read and dropped) before its connection is
 * cut.
 */
const LINGER_MS = 5_000;

/**
 * Answers 413 while the client may still be sending. Closing the connection with its bytes
 * unread would reset it, and a client whose write fails on the reset may never read the 413;
 * so the rest of the body is read and dropped (readJson left the request flowing) until the
 * client stops, and a client still sending after LINGER_MS is cut off. A body that does end
 * leaves a connection that may be used again.
 */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse, message: string): void {
  const socket = req.socket;
  const cut = setTimeout(() => socket.destroy(), LINGER_MS);
  cut.unref();
  const settle = () => clearTimeout(cut);
  req.once('end', settle);
  socket.once('close', settle);
  reply(res, 413, message, INVALID_REQUEST);
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** A session id as the request log shows it: its replica prefix and the first 8 characters of its uuid. */
function shortSession(id: string): string {
  const dot = id.lastIndexOf('.');
  return dot < 0 ? id.slice(0, 8) : `${id.slice(0, dot + 1)}${id.slice(dot + 1, dot + 9)}`;
}

/** What readBody returns once it answered the request itself. */
const NO_BODY = Symbol('no body');

/**
 * The store channel on which a replica tells the fleet that a search loaded tools into a session (the message is its
 * id).
 */
const LOADED_CHANNEL = 'search:loaded';

/**
 * Serves a 2025-era request with no session: a server and transport of its own, plain JSON unless the call streams
 * progress.
 */
async function serveLegacyOnce(
  server: ReturnType<typeof createMcpServer>,
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

/** A change source for servers made per request: they live for one exchange and never send list_changed themselves. */
const NO_CHANGES: ChangeSource = () => () => {};

/** Serves `host` over Streamable HTTP at `http://HOST:PORT/mcp` until close(). */
export async function serveHttp(host: ToolHost, options: HttpServeOptions): Promise<HttpEndpoint> {
  const onError = options.onError ?? (() => {});
  const origins = new Set(options.allowedOrigins ?? []);
  const { serve } = host.config;
  const { auth } = serve;
  if (auth && options.bearerToken !== undefined)
    throw new UsageError(
      'serve.auth and a bearer token (--token-env) both guard the endpoint: use one (OAuth tokens, or the static token)',
    );
  // Loaded only with serve.auth: jose and the discovery client stay out of a server that checks no tokens.
  const authModule = auth ? await import('./http-auth.js') : undefined;
  if (auth) authModule!.checkAuth(auth);
  // Set once the port is known, before any request is read: with serve.auth nothing is served without it.
  let guard: ResourceServer | undefined;
  const views = auth ? new IdentityViews(host) : undefined;
  // Each request is served by its caller's view; the identity rides on the request (caller.ts).
  const hostFor =
    views &&
    ((ctx: ServerContext) => {
      const identity = callerOf(ctx);
      return identity ? views.of(identity) : host;
    });
  const sessions = new SessionTable(
    options.sessionIdleMs ?? serve.sessionIdleMs,
    options.maxSessions ?? serve.maxSessions,
    options.maxSessionsPerClient ?? serve.maxSessionsPerClient,
    host.clock,
  );
  // Loaded only when on: prom-client stays out of a server that does not serve metrics.
  const ops: OpsEndpoints | undefined =
    (options.ops ?? serve.ops ?? isLoopback(options.host))
      ? (await import('./ops.js')).opsEndpoints(host, {
          sessions: () => sessions.size,
          evicted: () => sessions.evicted,
        })
      : undefined;
  const changes = sharedChanges(host);
  let allowedHosts: Set<string> | undefined;
  // The listener's own origins (set once the port is known): the console's same-origin check.
  let ownOrigins: ReadonlySet<string> = new Set();
  const trustedProxies = new Set((options.trustedProxies ?? serve.trustedProxies).map(normalizeAddress));

  // Requests with no session of their own (2026-07-28, --stateless): a server each, their held calls kept
  // here and recorded in the state store, so a retry on another replica of a fleet reaches them.
  const perRequest = requestScopedSession('per-request', host.clock);
  const shared = new SharedRounds(perRequest.rounds, host.state, perRequest.rounds.idleMs, onError);
  await shared.start();
  // A 2025-era client of a stateless server: what its initialize declared, kept in the store.
  const clients = new StatelessClients(host.state, host.config.state.sessionTtlMs, onError);
  const perRequestServer = (era: 'legacy' | 'modern') =>
    createMcpServer(host, {
      session: perRequest,
      changes: NO_CHANGES,
      network: 'tcp',
      meter: ops?.meter,
      ...(hostFor ? { hostFor } : {}),
      ...(era === 'legacy' ? { statelessClients: clients } : { shared }),
    });
  const modern = createMcpHandler(({ era }) => perRequestServer(era), {
    // 2025-era requests never reach it (serveLegacyOnce or a session serves them); its 'auto' replies are JSON until a
    // call emits.
    legacy: 'reject',
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: onError,
  });
  const serveModern = toNodeHandler(modern, { onerror: onError });
  const streams = new SessionStreams(
    () => perRequestServer('modern'),
    { maxBodyBytes: MAX_BODY_BYTES, maxStreams: options.maxSessions ?? host.config.serve.maxSessions },
    onError,
  );
  // A 2026-07-28 client hears of list changes on its subscriptions/listen stream: host-wide ones on
  // every stream, a search's on the streams of the session that searched (on whichever replica).
  const unlistenModern = changes.source((event) => {
    if (event.kind === 'change') {
      modern.notify.toolsChanged();
      streams.toolsChanged();
    } else if (event.sessionId !== undefined) void host.state.publish(LOADED_CHANNEL, event.sessionId).catch(onError);
  });
  const unlistenLoaded = await host.state
    .subscribe(LOADED_CHANNEL, (sessionId) => streams.toolsChanged(sessionId))
    .catch((error: unknown) => {
      onError(error);
      return async () => {};
    });

  /**
   * Answers `status` with `message`, and writes the refusal's audit line (who sent it, whom its token named, the
   * session it named).
   */
  function refuse(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    message: string,
    caller?: Identity,
    headers: Record<string, string> = {},
  ): void {
    const sessionId = req.headers['mcp-session-id'];
    recordRefusal(host, {
      status,
      reason: message,
      client: sender(req),
      ...(caller ? { identity: caller } : {}),
      ...(typeof sessionId === 'string' ? { sessionId } : {}),
    });
    if (mountedPath(req) !== undefined) options.mount!.refuse(res, status, message, headers);
    else reply(res, status, message, SERVER_ERROR, headers);
  }

  /** The path below the mount's prefix that `req` asks for, or undefined when it is not the mount's. */
  function mountedPath(req: IncomingMessage): string | undefined {
    const { mount } = options;
    if (!mount) return undefined;
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    return pathname.startsWith(mount.prefix) ? pathname.slice(mount.prefix.length) : undefined;
  }

  async function open(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    caller: Identity | undefined,
  ): Promise<void> {
    if (!isInitializeRequest(body))
      return reply(res, 400, 'Bad Request: no valid session id; start with initialize', INVALID_REQUEST);
    const client = sender(req);
    const owner = ownerKey(caller);
    const admission = await sessions.admit(client, {
      key: owner,
      max: caller && matchRule(host.config.access, caller)?.rule.quota?.sessions,
    });
    if ('status' in admission)
      return refuse(req, res, admission.status, admission.message, caller, { 'retry-after': '5' });
    const session = requestScopedSession('http-session', host.clock);
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => (options.replica === undefined ? randomUUID() : `${options.replica}.${randomUUID()}`),
      onsessioninitialized: (id: string): void => {
        admission.release();
        notes.set(req, { ...notes.get(req), session: id });
        sessions.add(id, {
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
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    transport.onerror = onError;
    // The toolshed session is the MCP session: its id is read from each request (the transport's).
    const server = createMcpServer(host, {
      session,
      changes: changes.source,
      network: 'tcp',
      meter: ops?.meter,
      ...(hostFor ? { hostFor } : {}),
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      admission.release();
    }
    // A refused initialize (bad protocol version) leaves no session: drop its server now.
    if (transport.sessionId === undefined || !sessions.get(transport.sessionId)) await server.close();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const badOrigin = originRefusal(req.headers.origin, origins);
    if (badOrigin) return refuse(req, res, 403, `Forbidden: ${badOrigin}`);
    if (allowedHosts && !allowedHosts.has((req.headers.host ?? '').toLowerCase()))
      return refuse(req, res, 403, `Invalid Host header: ${JSON.stringify((req.headers.host ?? '').slice(0, 100))}`);
    if (ops?.handle(req, res)) return;
    const mounted = mountedPath(req);
    if (mounted !== undefined && options.mount!.isPublic(mounted))
      return options.mount!.handle(req, res, { path: mounted, origins: ownOrigins });
    if (options.mount && new URL(req.url ?? '/', 'http://localhost').pathname === options.mount.prefix.slice(0, -1)) {
      return void res.writeHead(308, { location: options.mount.prefix }).end();
    }
    let caller: Identity | undefined;
    if (auth) {
      if (!guard) return reply(res, 503, 'Starting; retry', SERVER_ERROR, { 'retry-after': '1' });
      const document = guard.metadata(req);
      if (document) return sendResponse(res, document);
      const verified = await guard.authenticate(req.headers.authorization);
      if (verified instanceof Response) {
        const reason = await challengeReason(verified);
        if (verified.status === 401 || verified.status === 403)
          recordRefusal(host, { status: verified.status, reason, client: sender(req) });
        const challenge = verified.headers.get('www-authenticate');
        if (mounted !== undefined)
          return options.mount!.refuse(
            res,
            verified.status,
            reason,
            challenge ? { 'www-authenticate': challenge } : {},
          );
        return sendResponse(res, verified);
      }
      (req as AuthenticatedRequest).auth = verified;
      caller = identityOf(verified);
    } else if (options.bearerToken !== undefined && !hasBearer(req.headers.authorization, options.bearerToken)) {
      return refuse(req, res, 401, 'Unauthorized: send Authorization: Bearer <token>', undefined, {
        'www-authenticate': 'Bearer realm="toolshed"',
      });
    }
    if (mounted === undefined && new URL(req.url ?? '/', 'http://localhost').pathname !== MCP_PATH)
      return reply(res, 404, `Not found: MCP is served at ${MCP_PATH}`);
    const denied = caller && accessRefusal(caller);
    if (denied) return refuse(req, res, 403, `Forbidden: ${denied}`, caller);
    if (mounted !== undefined)
      return options.mount!.handle(req, res, { path: mounted, origins: ownOrigins, ...(caller ? { caller } : {}) });
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string' && !options.stateless) {
      const session = sessions.get(id);
      // 404 tells the client its session is gone and it should initialize again (spec, session management).
      if (!session) return reply(res, 404, sessionGone(id, options.replica));
      if (session.owner !== ownerKey(caller)) return refuse(req, res, 403, FOREIGN_SESSION, caller);
      sessions.track(session, req.method, res);
      if (req.method !== 'POST') return session.transport.handleRequest(req, res);
      // Read here, so the request log can name the JSON-RPC method and tool.
      const body = await readBody(req, res);
      if (body === NO_BODY) return;
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST') {
      if (options.stateless) return reply(res, 405, 'Method not allowed.', SERVER_ERROR, { allow: 'POST' });
      return reply(res, 400, 'Bad Request: no valid session id', INVALID_REQUEST);
    }
    const body = await readBody(req, res);
    if (body === NO_BODY) return;
    if (options.stateless) return serveStateless(req, res, body, caller);
    if (!(await isLegacyRequest(await toWebRequest(req, body), body))) return serveModern(req, res, body);
    return open(req, res, body, caller);
  }

  /**
   * The JSON body of a POST, noted for the request log; NO_BODY once a parse error or a body too large was answered.
   */
  async function readBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    let body: unknown;
    try {
      body = await readJson(req);
    } catch (error) {
      if (error instanceof BodyTooLarge) refuseTooLarge(req, res, error.message);
      else reply(res, 400, `Parse error: ${(error as Error).message}`, PARSE_ERROR);
      return NO_BODY;
    }
    notes.set(req, rpcNote(body));
    return body;
  }

  /**
   * Why `caller` may not use this server (no access rule matches it), or undefined when it may; its view is made now.
   */
  function accessRefusal(caller: Identity): string | undefined {
    try {
      views!.of(caller);
      return undefined;
    } catch (error) {
      if (error instanceof ToolshedError && error.code === 'ACCESS_DENIED') return error.message;
      throw error;
    }
  }

  /**
   * Whether `caller` may use the stateless session `id` (it is its own, or no one's yet); undefined when the store
   * cannot tell.
   */
  async function mayUse(id: string, caller: Identity): Promise<boolean | undefined> {
    try {
      return await clients.claim(id, ownerKey(caller));
    } catch (error) {
      onError(error);
      return undefined;
    }
  }

  /**
   * A POST to a stateless endpoint. A 2025-era initialize is issued a session id (a client of that era
   * sends one only when the server gave it one), with what it declared kept in the store; a listen
   * stream that names a session is that session's own (session-streams.ts).
   */
  async function serveStateless(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    caller: Identity | undefined,
  ): Promise<void> {
    const named = req.headers['mcp-session-id'];
    if (caller && typeof named === 'string') {
      const mine = await mayUse(named, caller);
      if (mine === undefined)
        return reply(
          res,
          503,
          'Cannot tell whose session this is: the state store did not answer; retry later',
          SERVER_ERROR,
          { 'retry-after': '5' },
        );
      if (!mine) return refuse(req, res, 403, FOREIGN_SESSION, caller);
    }
    if (typeof named === 'string' && isListenRequest(body)) {
      if (!(await streams.serve(named, req, res, body)))
        reply(res, 503, 'Too many listen streams open; close one or retry later', SERVER_ERROR, { 'retry-after': '5' });
      return;
    }
    if (isInitializeRequest(body)) {
      // A client that brings its own id keeps it; one that brings none is issued one.
      const id = await clients.opened(body, typeof named === 'string' ? named : undefined);
      if (typeof named !== 'string') {
        res.setHeader('mcp-session-id', id);
        // A new id is its caller's from the start (a store that failed now lets its next use claim it).
        if (caller) await mayUse(id, caller);
      }
    }
    if (await isLegacyRequest(await toWebRequest(req, body), body))
      return serveLegacyOnce(perRequestServer('legacy'), req, res, body);
    return serveModern(req, res, body);
  }

  // Who sent each request, read when it arrived (by its response's 'close' the connection may be gone).
  const senders = new WeakMap<IncomingMessage, string>();
  const sender = (req: IncomingMessage) => senders.get(req) ?? clientOf(req, trustedProxies);
  // What each request's body said, for its log line.
  const notes = new WeakMap<IncomingMessage, Pick<RequestLogEntry, 'rpc' | 'tool' | 'session'>>();
  const logRequest = (req: IncomingMessage, res: ServerResponse, started: number, client: string) => {
    const session = req.headers['mcp-session-id'] ?? notes.get(req)?.session ?? res.getHeader('mcp-session-id');
    options.onRequest!({
      method: req.method ?? '?',
      path: new URL(req.url ?? '/', 'http://localhost').pathname,
      status: res.statusCode,
      ms: Math.round(performance.now() - started),
      ...notes.get(req),
      ...(typeof session === 'string' ? { session: shortSession(session) } : {}),
      client,
    });
  };
  // A failure anywhere on a request's path (its handler, its error answer, its log line) ends that
  // request and is reported; it never reaches the process (one request must not stop a replica).
  const contained = (run: () => void) => (): void => {
    try {
      run();
    } catch (error) {
      onError(error);
    }
  };
  const httpServer = http.createServer((req, res) => {
    const started = performance.now();
    const client = clientOf(req, trustedProxies);
    senders.set(req, client);
    if (options.onRequest)
      res.once(
        'close',
        contained(() => logRequest(req, res, started, client)),
      );
    handle(req, res).catch((error: unknown) => {
      onError(error);
      contained(() => {
        if (!res.headersSent) reply(res, 500, 'Internal server error');
        else res.end();
      })();
      if (!res.writableEnded) res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port, options.host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const { port } = httpServer.address() as AddressInfo;
  const url = `http://${urlHost(options.host)}:${port}${MCP_PATH}`;
  const publicUrls = options.publicUrls ?? host.config.serve.publicUrl;
  if (isLoopback(options.host))
    allowedHosts = new Set([...loopbackHosts(urlHost(options.host), port), ...publicHosts(publicUrls)]);
  ownOrigins = new Set([
    ...loopbackHosts(urlHost(options.host), port).map((h) => `http://${h}`),
    ...publicUrls.map((u) => new URL(u).origin),
  ]);
  // The resource tokens are for: the URL clients reach it by.
  if (auth) guard = authModule!.resourceServer(auth, publicUrls[0] ?? url, onError, host.clock);
  const stopRefresh = startRefreshLoop(host, onError);

  let done!: () => void;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      stopRefresh();
      unlistenModern();
      closeSession(perRequest);
      await Promise.allSettled([
        sessions.closeAll(),
        modern.close(),
        streams.close(),
        shared.close(),
        unlistenLoaded(),
      ]);
      await views?.close();
      changes.dispose();
      const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      // Open SSE streams would hold close() forever.
      httpServer.closeAllConnections();
      await stopped;
      done();
    })());
  return {
    url,
    closed,
    close,
    get sessions() {
      return sessions.size;
    },
    sessionList: () => sessions.list(),
  };
}
