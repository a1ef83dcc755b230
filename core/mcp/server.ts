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
export function createMcpServer(host: ToolHost, changes: ChangeSource = hostChanges(host)): Server {
  const server = new Server(
    { name: 'toolshed', version: TOOLSHED_VERSION },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await host.definitions({ format: 'mcp' })) as Tool[] }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(host, request.params, extra, server));

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
  const unsubscribe = changes(onChange);
  const onClose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    onClose?.();
  };
  return server;
}

/** Where a server hears that the tool list changed: subscribe a listener, get its unsubscribe. */
export type ChangeSource = (listener: () => void) => () => void;

/** The host's own 'change' event, one listener per server (fine for stdio's single connection). */
export function hostChanges(host: ToolHost): ChangeSource {
  return (listener) => {
    host.on('change', listener);
    return () => void host.off('change', listener);
  };
}

/**
 * One host listener fanned out to any number of servers, so many sessions
 * add no listeners to the host (and cannot trip its MaxListeners warning).
 * `dispose` removes the host listener.
 */
export function sharedChanges(host: ToolHost): { source: ChangeSource; dispose(): void; readonly listeners: number } {
  const listeners = new Set<() => void>();
  const fanOut = () => {
    for (const listener of listeners) listener();
  };
  host.on('change', fanOut);
  return {
    source: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    dispose: () => {
      host.off('change', fanOut);
      listeners.clear();
    },
    get listeners() {
      return listeners.size;
    },
  };
}
