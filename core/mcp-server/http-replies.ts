/**
 * How `serve --http` answers when no session can stream to the client: a
 * 2025-era request without a session gets plain JSON unless it asked for
 * progress, because a JSON reply cut by a dying replica fails its call at
 * once while a cut SSE stream leaves the client waiting for its timeout. And
 * the 404 a client gets for a session this process does not hold, worded so
 * the client (and its operator) know to initialize again; and the SDK's
 * answers (auth challenges, metadata), which are fetch Responses, written out.
 */
import type { ServerResponse } from 'node:http';

/**
 * True when a 2025-era request body asks for notifications during its call (a `progressToken`), which only an SSE reply
 * carries.
 */
export function wantsStream(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    const meta = (message as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
    return meta?.progressToken !== undefined;
  });
}

/** The 404 message for a session id this process does not hold: which replica issued it, and what to do. */
export function sessionGone(id: string, replica: string | undefined): string {
  const dot = id.indexOf('.');
  const issuer = dot > 0 ? id.slice(0, dot) : undefined;
  const where =
    issuer !== undefined && replica !== undefined && issuer !== replica
      ? ` it was opened on replica ${issuer} and reached replica ${replica} (that replica went down, or the load balancer does not route on the session id);`
      : ' it ended (closed, idle past serve.sessionIdleMs, or its replica restarted);';
  return `Session not found:${where} send initialize again without Mcp-Session-Id to start a new one`;
}

/** Writes a fetch `Response` (the SDK's auth challenges and metadata documents) to `res`. */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}
