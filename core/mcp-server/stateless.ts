/**
 * `serve --http --stateless`: the SDK's stateless Streamable HTTP mode. Each
 * POST gets its own SDK server and transport, which are dropped when the
 * response ends, so the process keeps nothing about a client between
 * requests and any number of replicas can sit behind a plain load balancer.
 * There is no stream for server-initiated messages (GET and DELETE are 405),
 * so no list_changed either; clients re-list. Per-session tool state lives
 * where the tools keep it (the todo plugin's folder), keyed by the
 * `Mcp-Session-Id` header the client chooses to send.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer } from './server.js';
import type { ToolHost } from '../host/host.js';

/** What a stateless request needs from the HTTP endpoint. */
interface StatelessOptions {
  /** Host header values accepted (DNS-rebinding protection on loopback), when set */
  allowedHosts?: string[];
  onError(error: unknown): void;
}

function methodNotAllowed(res: ServerResponse): void {
  res.writeHead(405, { 'content-type': 'application/json', allow: 'POST' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless (POST only)' }, id: null }));
}

/** Answers one request with a server and transport made for it alone. */
export async function handleStateless(host: ToolHost, req: IncomingMessage, res: ServerResponse, options: StatelessOptions): Promise<void> {
  if (req.method !== 'POST') return methodNotAllowed(res);
  const server = createMcpServer(host);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    ...(options.allowedHosts ? { enableDnsRebindingProtection: true, allowedHosts: options.allowedHosts } : {}),
  });
  transport.onerror = options.onError;
  res.on('close', () => {
    transport.close().catch(options.onError);
    server.close().catch(options.onError);
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}
