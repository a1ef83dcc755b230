/**
 * Raw 2025-era JSON-RPC over HTTP, as a client without an SDK sends it: what the serve.auth tests
 * use to see exactly which status a request with a given token and session id gets.
 */

/** An initialize at 2025-06-18, and a tools/list. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
};
export const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

/** A raw JSON-RPC POST to `url`, with a bearer token and a session id when given. */
export function post(
  url: string,
  body: unknown,
  { token, session }: { token?: string; session?: string } = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}),
    },
    body: JSON.stringify(body),
  });
}
