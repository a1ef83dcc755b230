/**
 * The front door of toolshed's HTTP listeners (`serve --http`, `toolshed ui`): one node:http
 * listener and what every request passes before its handler. In order: the `Origin` (when the
 * listener checks it: serve), the `Host` header on loopback (DNS rebinding), the handlers that
 * need no token (serve's ops endpoints), the protected resource metadata of `serve.auth`, the
 * mount's public files, then authentication (an OAuth access token under `serve.auth`, else the
 * bearer token when one is set), the route (the mount, or the listener's endpoint), and the
 * access rules. Every refusal writes an audit line (`recordRefusal`, core/host/inspector.ts) and is answered in the
 * shape of whoever serves the path; a request that fails anywhere ends on its own and is
 * reported, never reaching the process. Each request gets a line in the request log once answered.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ListenAddress } from './address.js';
import { allowedHosts, clientOf, hasBearer, hostRefusal, listenerOrigins, originRefusal, urlHost } from './access.js';
import type { ResourceServer } from './auth.js';
import { identityOf } from './caller.js';
import { challengeReason, sendResponse } from './replies.js';
import { RequestLog } from './request-log.js';
import { routeOf } from './route.js';
import type { HttpMount, RequestLogEntry } from './public-types.js';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { ServeAuthConfig } from '../config/public-types.js';
import type { Identity } from '../../boundary/identity.js';
import type { ToolHost } from '../host/host.js';
import type { Clock } from '../state/clock.js';
import { recordRefusal } from '../host/inspector.js';

/** How one listener guards and answers. */
export interface FrontDoorOptions extends ListenAddress {
  /** the path of the listener's URL (`/mcp`; `/` for the console's own) */
  path: string;
  /** reports request failures */
  onError(error: unknown): void;
  /** when set, every request's `Origin` must be a loopback one or one of these (serve's; the console checks its own) */
  allowedOrigins?: ReadonlySet<string>;
  /** the URLs clients reach it by through a reverse proxy */
  publicUrls: readonly string[];
  /** reverse proxies whose `X-Forwarded-For` names the client (normalized addresses) */
  trustedProxies: ReadonlySet<string>;
  /** when set (and not `serve.auth`), every request that is not public must carry `Authorization: Bearer <token>` */
  bearerToken?: string;
  /** what the listener answers a request without the bearer token */
  bearerRefusal: string;
  /** the header a request names its session in, for audit lines and the request log */
  sessionHeader?: string;
  /** the clock `serve.auth` tokens are checked by (default the real one) */
  tokenClock?: Clock;
  /** told of every request once it was answered (the request log) */
  onRequest?(entry: RequestLogEntry): void;
  /** answers a refusal outside the mount, in the listener's own shape */
  refuse(res: ServerResponse, status: number, message: string, headers?: Record<string, string>): void;
  /** answers a request whose handler failed before it answered */
  fail(res: ServerResponse): void;
}

/** The listener's own service at its path (MCP at /mcp), behind authentication. */
export interface DoorEndpoint {
  handle(req: IncomingMessage, res: ServerResponse, caller: Identity | undefined): Promise<void>;
  /** answers a path that is neither the endpoint's nor the mount's */
  notFound(res: ServerResponse): void;
}

/** What the door serves once it listens. */
export interface DoorRoutes {
  /** answers a request that needs no token (the ops endpoints) and says so, or says it did not */
  before?(req: IncomingMessage, res: ServerResponse): boolean;
  /** a handler below a path prefix (the console) */
  mount?: HttpMount;
  endpoint?: DoorEndpoint;
  /** why a verified caller may use nothing here (no access rule matches it), or undefined when it may */
  accessRefusal?(caller: Identity): string | undefined;
}

/** A request whose token was verified: the SDK's transports hand `auth` to the handlers. */
type AuthenticatedRequest = IncomingMessage & { auth?: AuthInfo };

/** One listener's front door. */
export class FrontDoor {
  /** the listener's URL (with the real port when 0 was asked), once it listens */
  url = '';
  /** the listener's own origins, once it listens: the console's same-origin check */
  origins: ReadonlySet<string> = new Set();
  readonly log: RequestLog;
  /** settles once the listener closed */
  readonly closed: Promise<void>;
  private done!: () => void;
  private closing: Promise<void> | undefined;
  private readonly server: http.Server;
  private routes: DoorRoutes = {};
  private allowedHosts: ReadonlySet<string> | undefined;
  // Set once the port is known, before any request is read: with serve.auth nothing is served without it.
  private guard: ResourceServer | undefined;
  // Who sent each request, read when it arrived (by its response's 'close' the connection may be gone).
  private readonly senders = new WeakMap<IncomingMessage, string>();

  private constructor(
    private readonly host: ToolHost,
    private readonly options: FrontDoorOptions,
    private readonly auth: ServeAuthConfig | undefined,
    private readonly authModule: typeof import('./auth.js') | undefined,
  ) {
    this.log = new RequestLog(options.onRequest, options.sessionHeader);
    this.closed = new Promise<void>((resolve) => {
      this.done = resolve;
    });
    this.server = http.createServer((req, res) => this.receive(req, res));
  }

  /** A door for `host` (its `serve.auth` checked now); nothing listens until `listen`. */
  static async open(host: ToolHost, options: FrontDoorOptions): Promise<FrontDoor> {
    const { auth } = host.config.serve;
    // Loaded only with serve.auth: jose and the discovery client stay out of a listener that checks no tokens.
    const authModule = auth ? await import('./auth.js') : undefined;
    if (auth) authModule!.checkAuth(auth);
    return new FrontDoor(host, options, auth, authModule);
  }

  /** Listens (port 0 picks a free one) and serves `routes`; rejects with the listen error (EADDRINUSE). */
  async listen(routes: DoorRoutes): Promise<void> {
    this.routes = routes;
    const { server, options } = this;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    this.url = `http://${urlHost(options.host)}:${port}${options.path}`;
    this.allowedHosts = allowedHosts(options.host, port, options.publicUrls);
    this.origins = listenerOrigins(options.host, port, options.publicUrls);
    // The resource tokens are for: the URL clients reach it by.
    if (this.auth)
      this.guard = this.authModule!.resourceServer(
        this.auth,
        options.publicUrls[0] ?? this.url,
        options.onError,
        options.tokenClock,
      );
  }

  /** Runs `first` (what closes the handlers), then closes the listener and every connection; once. */
  shutdown(first: () => Promise<void>): Promise<void> {
    this.closing ??= (async () => {
      await first();
      const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
      // Open SSE streams would hold close() forever.
      this.server.closeAllConnections();
      await stopped;
      this.done();
    })();
    return this.closing;
  }

  /** Who sent `req` (`clientOf`, read when it arrived). */
  client(req: IncomingMessage): string {
    return this.senders.get(req) ?? clientOf(req, this.options.trustedProxies);
  }

  /**
   * Answers `status` with `message` in the shape of whoever serves the path, and writes the refusal's audit line (who
   * sent it, whom its token named, the session it named).
   */
  refuse(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    message: string,
    caller?: Identity,
    headers: Record<string, string> = {},
  ): void {
    const { sessionHeader } = this.options;
    const sessionId = sessionHeader === undefined ? undefined : req.headers[sessionHeader];
    recordRefusal(this.host, {
      status,
      reason: message,
      client: this.client(req),
      ...(caller ? { identity: caller } : {}),
      ...(typeof sessionId === 'string' ? { sessionId } : {}),
    });
    this.answer(req, res, status, message, headers);
  }

  /** Answers `status` with `message` (no audit line) in the shape of whoever serves the path. */
  private answer(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    message: string,
    headers: Record<string, string>,
  ): void {
    if (this.mountedPath(req) !== undefined) this.routes.mount!.refuse(res, status, message, headers);
    else this.options.refuse(res, status, message, headers);
  }

  /** The path below the mount's prefix that `req` asks for, or undefined when it is not the mount's. */
  private mountedPath(req: IncomingMessage): string | undefined {
    const route = routeOf(pathOf(req), this.routes.mount?.prefix, this.options.path);
    return route.kind === 'mount' ? route.path : undefined;
  }

  /** Serves one request, its failures contained: one request must not stop the listener. */
  private receive(req: IncomingMessage, res: ServerResponse): void {
    const client = clientOf(req, this.options.trustedProxies);
    this.senders.set(req, client);
    this.log.watch(req, res, client, this.options.onError);
    this.handle(req, res).catch((error: unknown) => {
      this.options.onError(error);
      try {
        if (!res.headersSent) this.options.fail(res);
        else res.end();
      } catch (failure) {
        this.options.onError(failure);
      }
      if (!res.writableEnded) res.destroy();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { options, routes } = this;
    const badOrigin = options.allowedOrigins && originRefusal(req.headers.origin, options.allowedOrigins);
    if (badOrigin) return this.refuse(req, res, 403, `Forbidden: ${badOrigin}`);
    const badHost = hostRefusal(req.headers.host, this.allowedHosts);
    if (badHost) return this.refuse(req, res, 403, badHost);
    if (routes.before?.(req, res)) return;
    const document = this.guard?.metadata(req);
    if (document) return sendResponse(res, document);
    const route = routeOf(pathOf(req), routes.mount?.prefix, options.path);
    if (route.kind === 'mount' && routes.mount!.isPublic(route.path))
      return routes.mount!.handle(req, res, { path: route.path, origins: this.origins });
    if (route.kind === 'redirect') return void res.writeHead(308, { location: route.location }).end();
    const caller = await this.authenticate(req, res);
    if (caller === false) return;
    if (route.kind === 'none') return routes.endpoint!.notFound(res);
    const denied = caller && routes.accessRefusal?.(caller);
    if (denied) return this.refuse(req, res, 403, `Forbidden: ${denied}`, caller);
    if (route.kind === 'mount')
      return routes.mount!.handle(req, res, { path: route.path, origins: this.origins, ...(caller ? { caller } : {}) });
    return routes.endpoint!.handle(req, res, caller);
  }

  /** The caller of a request (undefined without `serve.auth`), or false when it was refused (answered here). */
  private async authenticate(req: IncomingMessage, res: ServerResponse): Promise<Identity | undefined | false> {
    const { options } = this;
    if (this.auth) {
      if (!this.guard) {
        this.answer(req, res, 503, 'Starting; retry', { 'retry-after': '1' });
        return false;
      }
      const verified = await this.guard.authenticate(req.headers.authorization);
      if (verified instanceof Response) {
        await this.challenge(req, res, verified);
        return false;
      }
      (req as AuthenticatedRequest).auth = verified;
      return identityOf(verified);
    }
    if (options.bearerToken !== undefined && !hasBearer(req.headers.authorization, options.bearerToken)) {
      this.refuse(req, res, 401, options.bearerRefusal, undefined, { 'www-authenticate': 'Bearer realm="toolshed"' });
      return false;
    }
    return undefined;
  }

  /**
   * Answers a token the resource server refused: its challenge as the SDK built it, or on the mount in the mount's
   * shape. A 5xx (tokens cannot be checked yet) is no refusal of the request's: not audited.
   */
  private async challenge(req: IncomingMessage, res: ServerResponse, verified: Response): Promise<void> {
    const reason = await challengeReason(verified);
    if (verified.status === 401 || verified.status === 403)
      recordRefusal(this.host, { status: verified.status, reason, client: this.client(req) });
    const challenge = verified.headers.get('www-authenticate');
    if (this.mountedPath(req) === undefined) return sendResponse(res, verified);
    this.routes.mount!.refuse(res, verified.status, reason, challenge ? { 'www-authenticate': challenge } : {});
  }
}

/** The path a request asks for, without its query. */
function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://localhost').pathname;
}
