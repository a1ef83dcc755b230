/**
 * What `toolshed/mcp`'s serving functions take and return (`serveStdio`, `serveHttp`), and the
 * sessions serve lists for the console. Types only, importing only public types, so the
 * declarations an embedder compiles against reach no server, session or transport.
 */
import type { ListenAddress } from '../http/address.js';
import type { HttpMount, RequestLogEntry } from '../http/public-types.js';
import type { CallerIdentity } from '../../boundary/identity.js';

/** A running MCP endpoint. */
export interface McpEndpoint {
  /** settles when the client went away (stdin closed) or close() was called */
  closed: Promise<void>;
  /** stops serving; in-flight calls are cancelled. The host stays open. */
  close(): Promise<void>;
}

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

/** A running HTTP endpoint and its URL (with the real port when 0 was asked). */
export interface HttpEndpoint extends McpEndpoint {
  url: string;
  /** sessions open now */
  readonly sessions: number;
  /** the sessions open now, as the console lists them */
  sessionList(): SessionSnapshot[];
}

/** An open session as others may see it (the console's api/sessions): no server, transport or held calls. */
export interface SessionSnapshot {
  id: string;
  identity?: CallerIdentity;
  /** the client's name and version, from its initialize */
  client?: string;
  openedAt: number;
  lastSeen: number;
}
