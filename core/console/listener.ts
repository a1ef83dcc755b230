/**
 * `toolshed ui`'s own listener: the console at `/` on node:http, guarded as
 * `serve --http` guards MCP. On loopback the Host header must name the server
 * (DNS rebinding); the page's files need no token, while every API request
 * carries the bearer token (`--token-env`) or, with `serve.auth`, an OAuth
 * access token (http-auth.ts) whose identity the console then works as. Each
 * refusal (401, 403) writes an audit line (`host.recordRefusal`), as serve's do.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopback, type ListenAddress } from '../mcp-server/address.js';
import { clientOf, hasBearer, loopbackHosts, normalizeAddress, publicHosts } from '../mcp-server/http-access.js';
import { identityOf } from '../mcp-server/caller.js';
import { sendResponse } from '../mcp-server/http-replies.js';
import type { ResourceServer } from '../mcp-server/http-auth.js';
import type { ToolHost } from '../host/host.js';
import { recordRefusal } from '../host/inspector.js';
import type { Identity } from '../../boundary/identity.js';
import { consoleHandler } from './console.js';
import { sendError, sendRefusal } from './replies.js';

/** Where and how `toolshed ui` listens. */
export interface ConsoleListenOptions extends ListenAddress {
  /** every API request must carry `Authorization: Bearer <token>` (not with `serve.auth`) */
  bearerToken?: string;
  /** origins allowed besides the console's own */
  allowedOrigins?: readonly string[];
  /** the URLs the console is reached by through a reverse proxy (default: the host's `serve.publicUrl`) */
  publicUrls?: readonly string[];
  /** reports request failures */
  onError?(error: unknown): void;
}

/** A running console and its URL. */
export interface ConsoleEndpoint {
  /** `http://HOST:PORT/` */
  url: string;
  /** resolves once the listener closed */
  closed: Promise<void>;
  /** ends every event stream and request, and closes the listener */
  close(): Promise<void>;
}

/** A host as it appears in a URL (`[::1]` for IPv6). */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The origins a browser sends for pages of a server bound to `host` on `port`, and of its public URLs. */
function ownOrigins(host: string, port: number, publicUrls: readonly string[]): Set<string> {
  return new Set([
    ...loopbackHosts(urlHost(host), port).map((h) => `http://${h}`),
    ...publicUrls.map((u) => new URL(u).origin),
  ]);
}

/** Listens on `options` (port 0 picks a free one); rejects with the listen error (EADDRINUSE) when it cannot. */
export async function serveConsole(host: ToolHost, options: ConsoleListenOptions): Promise<ConsoleEndpoint> {
  const onError = options.onError ?? (() => {});
  const { auth } = host.config.serve;
  const authModule = auth ? await import('../mcp-server/http-auth.js') : undefined;
  if (auth) authModule!.checkAuth(auth);
  let guard: ResourceServer | undefined;
  let allowedHosts: Set<string> | undefined;
  let origins = new Set<string>();
  const publicUrls = options.publicUrls ?? host.config.serve.publicUrl;
  const webConsole = consoleHandler({
    host,
    serving: { mcp: false },
    oauth: auth !== undefined,
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
  });

  /**
   * Answers the listener's refusal `status` and writes its audit line (who sent it; no identity: none was verified).
   */
  function refuse(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    status: number,
    message: string,
    headers: Record<string, string> = {},
  ): void {
    recordRefusal(host, {
      status,
      reason: message,
      client: clientOf(req, new Set(host.config.serve.trustedProxies.map(normalizeAddress))),
    });
    sendRefusal(res, status, message, headers);
  }

  /** The caller of an API request, or false when it was refused (answered here). */
  async function authenticate(
    req: http.IncomingMessage,
    res: http.ServerResponse,
  ): Promise<Identity | undefined | false> {
    if (guard) {
      const verified = await guard.authenticate(req.headers.authorization);
      if (verified instanceof Response) {
        const challenge = verified.headers.get('www-authenticate');
        const body = (await verified.json().catch(() => ({}))) as { error_description?: string; error?: string };
        const reason = body.error_description ?? body.error ?? 'a valid access token is needed';
        const headers: Record<string, string> = challenge ? { 'www-authenticate': challenge } : {};
        // A 5xx (tokens cannot be checked yet) is no refusal of the request's: not audited, as serve's is not.
        if (verified.status === 401 || verified.status === 403) refuse(req, res, verified.status, reason, headers);
        else sendRefusal(res, verified.status, reason, headers);
        return false;
      }
      return identityOf(verified);
    }
    if (options.bearerToken !== undefined && !hasBearer(req.headers.authorization, options.bearerToken)) {
      refuse(req, res, 401, 'send Authorization: Bearer <token>', { 'www-authenticate': 'Bearer realm="toolshed"' });
      return false;
    }
    return undefined;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (allowedHosts && !allowedHosts.has((req.headers.host ?? '').toLowerCase()))
      return refuse(req, res, 403, `Invalid Host header: ${JSON.stringify((req.headers.host ?? '').slice(0, 100))}`);
    const document = guard?.metadata(req);
    if (document) return sendResponse(res, document);
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.slice(1);
    if (webConsole.isPublic(path)) return webConsole.handle(req, res, { path, origins });
    const caller = await authenticate(req, res);
    if (caller === false) return;
    return webConsole.handle(req, res, { path, origins, ...(caller ? { caller } : {}) });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      onError(error);
      if (!res.headersSent)
        sendError(res, 'INTERNAL_ERROR', 'the console failed to answer this request; the server log says why');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${urlHost(options.host)}:${port}/`;
  origins = ownOrigins(options.host, port, publicUrls);
  if (isLoopback(options.host))
    allowedHosts = new Set([...loopbackHosts(urlHost(options.host), port), ...publicHosts(publicUrls)]);
  if (auth) guard = authModule!.resourceServer(auth, publicUrls[0] ?? url, onError);

  let done!: () => void;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  let closing: Promise<void> | undefined;
  return {
    url,
    closed,
    close: () =>
      (closing ??= (async () => {
        await webConsole.close();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await stopped;
        done();
      })()),
  };
}
