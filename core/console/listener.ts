/**
 * `toolshed ui`'s own listener: the console at `/` behind the front door
 * (core/http/front-door.ts), guarded as `serve --http` guards MCP. On loopback
 * the Host header must name the server (DNS rebinding); the page's files need
 * no token, while every API request carries the bearer token (`--token-env`)
 * or, with `serve.auth`, an OAuth access token whose identity the console then
 * works as. Each refusal (401, 403) writes an audit line (`recordRefusal`, core/host/inspector.ts),
 * as serve's do. The console checks each request's Origin itself (console.ts).
 */
import type { ListenAddress } from '../http/address.js';
import { normalizeAddress } from '../http/access.js';
import { FrontDoor } from '../http/front-door.js';
import type { ToolHost } from '../host/host.js';
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

/** Listens on `options` (port 0 picks a free one); rejects with the listen error (EADDRINUSE) when it cannot. */
export async function serveConsole(host: ToolHost, options: ConsoleListenOptions): Promise<ConsoleEndpoint> {
  const door = await FrontDoor.open(host, {
    host: options.host,
    port: options.port,
    path: '/',
    onError: options.onError ?? (() => {}),
    publicUrls: options.publicUrls ?? host.config.serve.publicUrl,
    trustedProxies: new Set(host.config.serve.trustedProxies.map(normalizeAddress)),
    ...(options.bearerToken !== undefined ? { bearerToken: options.bearerToken } : {}),
    bearerRefusal: 'send Authorization: Bearer <token>',
    refuse: sendRefusal,
    fail: (res) =>
      sendError(res, 'INTERNAL_ERROR', 'the console failed to answer this request; the server log says why'),
  });
  const webConsole = consoleHandler({
    host,
    serving: { mcp: false },
    oauth: host.config.serve.auth !== undefined,
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
  });
  await door.listen({ mount: { prefix: '/', ...webConsole } });
  return { url: door.url, closed: door.closed, close: () => door.shutdown(() => webConsole.close()) };
}
