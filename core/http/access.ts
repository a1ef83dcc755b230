/**
 * Who may talk to toolshed's listeners (`serve --http`, `toolshed ui`). The Streamable HTTP spec says a
 * server MUST validate `Origin`: a web page the user visits can make the
 * browser send requests to a server on loopback, and the Origin header is how
 * the server tells. A request with no Origin (a non-browser client) passes;
 * one from a loopback origin passes; others only when listed with
 * `--allow-origin`. On loopback the Host header must name the server: its
 * bound address, or a public URL a reverse proxy serves it at (`--public-url`),
 * so a page whose name was rebound to 127.0.0.1 is refused. Optional
 * bearer-token auth (`--token-env NAME`) guards every request, and is what
 * lets the server bind a non-loopback address. And who is talking: the client
 * a request counts as for the per-client session cap (behind trusted proxies,
 * the one X-Forwarded-For names).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { UsageError } from '../../boundary/errors.js';
import { isLoopback } from './address.js';

/**
 * An origin as browsers send it (`scheme://host[:port]`), from what an operator wrote; throws a UsageError when it is
 * not one.
 */
export function normalizeOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(
      `--allow-origin expects origins like https://app.example or http://localhost:5173, got '${value}'`,
    );
  }
  if (url.origin === 'null')
    throw new UsageError(`--allow-origin: '${value}' has no origin (use http:// or https:// URLs)`);
  return url.origin;
}

/** Why a request's `Origin` header is refused, or undefined when it may proceed. */
export function originRefusal(header: string | string[] | undefined, allowed: ReadonlySet<string>): string | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header.join(',') : header;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `Origin ${JSON.stringify(value.slice(0, 100))} is not an origin`;
  }
  if (
    url.origin !== 'null' &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    isLoopback(url.hostname.replace(/^\[|\]$/g, ''))
  )
    return undefined;
  if (allowed.has(url.origin)) return undefined;
  return `Origin ${url.origin} is not allowed (loopback origins are; add others with --allow-origin)`;
}

/**
 * A public URL as an operator wrote it (`https://tools.example/mcp`), checked; throws a UsageError when it is not an
 * http(s) URL.
 */
export function normalizePublicUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--public-url expects URLs like https://tools.example/mcp, got '${value}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--public-url: '${value}' is not an http:// or https:// URL`);
  return url.href;
}

/** The Host headers that name a loopback server bound to `host` (as in a URL) on `port`. */
function loopbackHosts(host: string, port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${host.toLowerCase()}:${port}`];
}

/**
 * The Host headers a client sends for each of `urls`: `host:port`, and the bare host when the port is the scheme's
 * default.
 */
function publicHosts(urls: readonly string[]): string[] {
  return urls.flatMap((value) => {
    const url = new URL(value);
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return url.port ? [url.host] : [url.host, `${url.host}:${port}`];
  });
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether an `Authorization` header carries `token` as a bearer token (compared in constant time). */
export function hasBearer(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
}

/**
 * Who a request comes from, for the per-client cap: its remote address. A bearer token does not
 * tell clients apart (`--token-env` is one token every client shares). Behind a reverse proxy
 * every connection comes from the proxy: a request from one of `trustedProxies` is the client its
 * `X-Forwarded-For` names (the rightmost address that is not itself a trusted proxy, since each
 * proxy appends the address it saw); from any other address the header is ignored, so a client
 * cannot choose who it is counted as (docs/operations.md). Read it when the request arrives: by its
 * response's `close` the connection may be gone ('unknown').
 */
export function clientOf(req: IncomingMessage, trustedProxies: ReadonlySet<string> = new Set()): string {
  // Node drops `req.socket` (null, whatever its type says) once the response let go of a connection that is gone.
  const peer = normalizeAddress((req.socket as IncomingMessage['socket'] | null)?.remoteAddress ?? 'unknown');
  if (!trustedProxies.has(peer)) return peer;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((hop) => normalizeAddress(hop.trim()))
    .filter(Boolean);
  for (let index = hops.length - 1; index >= 0; index--) if (!trustedProxies.has(hops[index]!)) return hops[index]!;
  return peer;
}

/** An address as compared: an IPv4 address mapped into IPv6 (`::ffff:10.0.0.5`) is the IPv4 one. */
export function normalizeAddress(address: string): string {
  return address.toLowerCase().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}

/** A host as it appears in a URL (`[::1]` for IPv6). */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The origins a browser sends for pages of a listener bound to `host` on `port`, and of its public URLs. */
export function listenerOrigins(host: string, port: number, publicUrls: readonly string[]): Set<string> {
  return new Set([
    ...loopbackHosts(urlHost(host), port).map((h) => `http://${h}`),
    ...publicUrls.map((u) => new URL(u).origin),
  ]);
}

/**
 * The Host headers a listener bound to `host` on `port` accepts: on loopback its own names and its public URLs' hosts
 * (a page whose name was rebound to 127.0.0.1 is refused); undefined (any) elsewhere.
 */
export function allowedHosts(host: string, port: number, publicUrls: readonly string[]): Set<string> | undefined {
  if (!isLoopback(host)) return undefined;
  return new Set([...loopbackHosts(urlHost(host), port), ...publicHosts(publicUrls)]);
}

/** Why a request's `Host` header is refused (`allowed` undefined: any is), or undefined when it may proceed. */
export function hostRefusal(header: string | undefined, allowed: ReadonlySet<string> | undefined): string | undefined {
  if (!allowed || allowed.has((header ?? '').toLowerCase())) return undefined;
  return `Invalid Host header: ${JSON.stringify((header ?? '').slice(0, 100))}`;
}
