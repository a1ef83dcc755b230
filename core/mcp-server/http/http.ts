/**
 * `toolshed serve --http`: Streamable HTTP on node:http at `/mcp`, both
 * protocol eras on one endpoint, behind the front door (core/http/front-door.ts:
 * the Origin, the Host on loopback, the bearer token or `serve.auth`'s OAuth
 * access tokens, the request log). A 2026-07-28 request (it carries the
 * per-request `_meta` envelope) is served by the SDK's `createMcpHandler`
 * from a server made for it; a 2025-era client gets a session (one SDK
 * server and transport per `Mcp-Session-Id`, http-sessions.ts), or with
 * `--stateless` a server per request for both eras (per-request.ts: a held
 * call is answerable on any replica of a fleet). Replies are plain JSON
 * unless the exchange streams (http-replies.ts), so a reply cut by a dying
 * replica fails its call at once. With `serve.auth` each request is served by
 * its caller's identity view (`host.as`), and the sessions it opens are its
 * own (a session id presented with another identity's token is refused, on a
 * stateless fleet too). Sessions expire when idle and are capped in all, per
 * client and per identity (sessions/session-table.ts); their ids name the
 * replica that issued them when it has a name. All of them share one listener
 * on the host. `/healthz`, `/readyz` and `/metrics` (ops.ts) answer outside
 * the authentication when the ops endpoints are on.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import { sharedChanges } from '../protocol/changes.js';
import { startRefreshLoop } from '../protocol/refresh-loop.js';
import type { ServerOptions } from '../protocol/server.js';
import { SessionTable } from '../sessions/session-table.js';
import { isLoopback } from '../../http/address.js';
import { normalizeAddress } from '../../http/access.js';
import { callerOf } from '../../http/caller.js';
import { FrontDoor, type FrontDoorOptions } from '../../http/front-door.js';
import { IdentityViews } from '../../http/identity-views.js';
import { HttpSessions } from './http-sessions.js';
import { McpHttpEndpoint } from './mcp-endpoint.js';
import type { OpsEndpoints } from './ops.js';
import { PerRequestServers } from './per-request.js';
import { reply } from './http-replies.js';
import { ToolshedError, UsageError } from '../../../boundary/errors.js';
import type { Identity } from '../../../boundary/identity.js';
import type { ToolHost } from '../../host/tool-host.js';
import type { HttpEndpoint, HttpServeOptions } from '../public-types.js';

/** MCP's endpoint path. */
export const MCP_PATH = '/mcp';

/** Serves `host` over Streamable HTTP at `http://HOST:PORT/mcp` until close(). */
export async function serveHttp(host: ToolHost, options: HttpServeOptions): Promise<HttpEndpoint> {
  const onError = options.onError ?? (() => {});
  const { serve } = host.config;
  if (serve.auth && options.bearerToken !== undefined)
    throw new UsageError(
      'serve.auth and a bearer token (--token-env) both guard the endpoint: use one (OAuth tokens, or the ' +
        'static token)',
    );
  const door = await FrontDoor.open(host, doorOptions(host, options, onError));
  const views = serve.auth ? new IdentityViews(host) : undefined;
  const table = new SessionTable(
    options.sessionIdleMs ?? serve.sessionIdleMs,
    options.maxSessions ?? serve.maxSessions,
    options.maxSessionsPerClient ?? serve.maxSessionsPerClient,
    host.clock,
  );
  const ops = await opsOf(host, options, table);
  const changes = sharedChanges(host);
  const serverOptions = {
    network: 'tcp',
    meter: ops?.meter,
    ...(views ? { hostFor: viewOf(host, views) } : {}),
  } as const;
  const sessions = new HttpSessions(
    host,
    door,
    table,
    { ...serverOptions, changes: changes.source },
    {
      replica: options.replica,
      onError,
    },
  );
  const perRequest = new PerRequestServers(host, door, {
    serverOptions,
    changes: changes.source,
    maxStreams: options.maxSessions ?? serve.maxSessions,
    onError,
  });
  await perRequest.start();
  await door.listen({
    ...(ops ? { before: (req, res) => ops.handle(req, res) } : {}),
    ...(options.mount ? { mount: options.mount } : {}),
    endpoint: new McpHttpEndpoint(door, sessions, perRequest, options.stateless === true, MCP_PATH),
    ...(views ? { accessRefusal: (caller: Identity) => accessRefusal(views, caller) } : {}),
  });
  const stopRefresh = startRefreshLoop(host, onError);
  const close = () =>
    door.shutdown(async () => {
      stopRefresh();
      await Promise.allSettled([table.closeAll(), perRequest.close()]);
      await views?.close();
      changes.dispose();
    });
  return {
    url: door.url,
    closed: door.closed,
    close,
    get sessions() {
      return table.size;
    },
    sessionList: () => table.list(),
  };
}

/** serve's front door: Origin checked, MCP's session header audited and logged, refusals as JSON-RPC errors. */
function doorOptions(host: ToolHost, options: HttpServeOptions, onError: (error: unknown) => void): FrontDoorOptions {
  const { serve } = host.config;
  return {
    host: options.host,
    port: options.port,
    path: MCP_PATH,
    onError,
    allowedOrigins: new Set(options.allowedOrigins ?? []),
    publicUrls: options.publicUrls ?? serve.publicUrl,
    trustedProxies: new Set((options.trustedProxies ?? serve.trustedProxies).map(normalizeAddress)),
    ...(options.bearerToken !== undefined ? { bearerToken: options.bearerToken } : {}),
    bearerRefusal: 'Unauthorized: send Authorization: Bearer <token>',
    sessionHeader: 'mcp-session-id',
    tokenClock: host.clock,
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
    refuse: (res, status, message, headers) => reply(res, status, message, undefined, headers),
    fail: (res) => reply(res, 500, 'Internal server error'),
  };
}

/** The ops endpoints when on (default: the host's `serve.ops`, else on when bound to loopback). */
async function opsOf(
  host: ToolHost,
  options: HttpServeOptions,
  table: SessionTable,
): Promise<OpsEndpoints | undefined> {
  if (!(options.ops ?? host.config.serve.ops ?? isLoopback(options.host))) return undefined;
  // Loaded only when on: prom-client stays out of a server that does not serve metrics.
  const { opsEndpoints } = await import('./ops.js');
  return opsEndpoints(host, { sessions: () => table.size, evicted: () => table.evicted });
}

/** Each request is served by its caller's view; the identity rides on the request (core/http/caller.ts). */
function viewOf(host: ToolHost, views: IdentityViews): NonNullable<ServerOptions['hostFor']> {
  return (ctx: ServerContext) => {
    const identity = callerOf(ctx);
    return identity ? views.of(identity) : host;
  };
}

/**
 * Why `caller` may not use this server (no access rule matches it), or undefined when it may; its view is made now.
 */
function accessRefusal(views: IdentityViews, caller: Identity): string | undefined {
  try {
    views.of(caller);
    return undefined;
  } catch (error) {
    if (error instanceof ToolshedError && error.code === 'ACCESS_DENIED') return error.message;
    throw error;
  }
}
