/**
 * Probing a Streamable HTTP server, and telling a transport error from an
 * answer. A request that never reached the server (connection refused or
 * reset, a proxy's 502/503/504, no answer at all) says nothing about the tool
 * it carried: the connection is probed, and only a probe the server does not
 * answer hides its tools. While it is unreachable, one small request to its
 * URL per probe interval says when it is back, and only then is the full
 * handshake tried again.
 */
import { SdkHttpError } from '@modelcontextprotocol/client';
import { pinnedFetch } from './pinned-fetch.js';

/** What a proxy or load balancer answers when the server behind it is down or cut its reply. */
const GATEWAY_STATUSES = new Set([502, 503, 504]);

/** The probe sent while the server is unreachable: any reply but a gateway's says it is back. */
const PING = JSON.stringify({ jsonrpc: '2.0', id: 'toolshed-probe', method: 'ping' });

/**
 * The wait before the next probe: `intervalMs` to 1.5 × `intervalMs`, so the probes of many hosts do not fall into
 * step.
 */
export function probeDelay(intervalMs: number, random = Math.random()): number {
  return Math.round(intervalMs * (1 + random / 2));
}

/** Network failures of fetch (the cause carries the system error), in words. */
function networkFailure(error: unknown): string | undefined {
  if (!(error instanceof TypeError)) return undefined;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.message ?? cause?.code ?? error.message;
}

/**
 * Why a request did not reach the server (network failure, or a gateway's 502/503/504), in words; undefined when the
 * server answered it.
 */
export function transportFailure(error: unknown): string | undefined {
  const network = networkFailure(error);
  if (network) return network;
  if (error instanceof SdkHttpError && GATEWAY_STATUSES.has(error.status))
    return `HTTP ${error.status} ${error.statusText ?? ''}`.trimEnd();
  return undefined;
}

/**
 * Whether the server no longer knows the connection's session (404 "Session not found"): a new `initialize` is needed.
 */
export function sessionEnded(error: unknown): boolean {
  return (error as { status?: unknown })?.status === 404 || (error as { code?: unknown })?.code === 404;
}

/**
 * Whether anything answers at the server's URL before `signal` aborts: a `ping` without a session
 * may well be refused, but any reply other than a gateway's 502/503/504 was sent by the server.
 */
export async function answers(url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<boolean> {
  try {
    const init = {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: PING,
      signal,
    };
    const response = await pinnedFetch(url)(url, init);
    await response.body?.cancel();
    return !GATEWAY_STATUSES.has(response.status);
  } catch {
    return false;
  }
}
