/** `createMcpServer`, the `toolshed/mcp` entry's server for an embedder's own transport. */
import type { Server } from '@modelcontextprotocol/server';
import { buildMcpServer } from './server.js';
import type { ToolHost } from '../../host/tool-host.js';

/**
 * Creates an SDK `Server` serving `host`'s tools; serve it with the SDK's
 * `serveStdio(() => server)` or `createMcpHandler(() => createMcpServer(host))`.
 * Each server is one toolshed session (its tool_search loaded set, its held calls and tasks).
 * It stops listening to the host when it closes; the host stays open.
 * @example
 * import { serveStdio } from '@modelcontextprotocol/server/stdio';
 * serveStdio(() => createMcpServer(host));
 */
export function createMcpServer(host: ToolHost): Server {
  return buildMcpServer(host);
}
