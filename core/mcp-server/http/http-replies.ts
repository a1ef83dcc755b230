/**
 * How `serve --http` answers when no session can stream to the client: a
 * 2025-era request without a session gets plain JSON unless it asked for
 * progress, because a JSON reply cut by a dying replica fails its call at
 * once while a cut SSE stream leaves the client waiting for its timeout. And
 * the 404 a client gets for a session this process does not hold, worded so
 * the client (and its operator) know to initialize again; and the JSON-RPC
 * errors the endpoint answers with itself.
 */
import type { ServerResponse } from 'node:http';
import type { RequestNote } from '../../http/request-log.js';

/** JSON-RPC error codes this endpoint answers with itself. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const SERVER_ERROR = -32000;

/** Answers `status` with a JSON-RPC error (`code`, `message`) that answers no request (id null). */
export function reply(
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

/** The refusal of a session id presented by an identity that did not open it (who did is not said). */
export const FOREIGN_SESSION =
  'Forbidden: this session belongs to another identity; start your own with initialize (without Mcp-Session-Id)';

/** What the request log says of a JSON-RPC body: its method(s), and the tool a tools/call names. */
export function rpcNote(body: unknown): RequestNote {
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
      ? ` it was opened on replica ${issuer} and reached replica ${replica} (that replica went down, or the load ` +
        `balancer does not route on the session id);`
      : ' it ended (closed, idle past serve.sessionIdleMs, or its replica restarted);';
  return `Session not found:${where} send initialize again without Mcp-Session-Id to start a new one`;
}

/** Request bodies above this are refused before parsing. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
