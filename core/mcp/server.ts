/**
 * The MCP server for one client connection, built on the SDK's low-level
 * `Server` because the tool list is dynamic: `tools/list` is the host's
 * definitions in the mcp format at the moment of the request, and
 * `notifications/tools/list_changed` follows every host 'change' event.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { callTool } from './call-tool.js';
import { TOOLSHED_VERSION } from '../version.js';
import type { ToolHost } from '../host.js';

/**
 * Creates an SDK `Server` serving `host`'s tools; connect it to a transport.
 * It stops listening to the host when its transport closes; the host stays open.
 * @example
 * const server = createMcpServer(host);
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(host: ToolHost): Server {
  const server = new Server(
    { name: 'toolshed', version: TOOLSHED_VERSION },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await host.definitions({ format: 'mcp' })) as Tool[] }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(host, request.params, extra));

  // Notifications before the handshake completes would reach a client that cannot place them yet.
  let initialized = false;
  const onInitialized = server.oninitialized;
  server.oninitialized = () => {
    initialized = true;
    onInitialized?.();
  };
  const onChange = () => {
    if (initialized) server.sendToolListChanged().catch(() => {});
  };
  host.on('change', onChange);
  const onClose = server.onclose;
  server.onclose = () => {
    host.off('change', onChange);
    onClose?.();
  };
  return server;
}
