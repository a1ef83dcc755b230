/**
 * The MCP server for one client connection, built on the SDK's low-level
 * `Server` because the tool list is dynamic: `tools/list` is the host's
 * definitions in the mcp format at the moment of the request, and
 * `notifications/tools/list_changed` follows every host 'change' event, and
 * every tool_search that loads new tools into this connection's session (the
 * MCP session id over HTTP, the host's default session over stdio).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { callTool } from './call-tool.js';
import { traceServer } from './tracing.js';
import { TOOLSHED_VERSION } from '../../boundary/version.js';
import type { ToolHost } from '../host/host.js';
import type { HostEvents } from '../host/events.js';

/**
 * Creates an SDK `Server` serving `host`'s tools; connect it to a transport.
 * It stops listening to the host when its transport closes; the host stays open.
 * @example
 * const server = createMcpServer(host);
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(host: ToolHost, changes: ChangeSource = hostChanges(host)): Server {
  const server = new Server({ name: 'toolshed', version: TOOLSHED_VERSION }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => ({
    tools: (await host.definitions({ format: 'mcp', ...(extra.sessionId !== undefined ? { sessionId: extra.sessionId } : {}) })) as Tool[],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(host, request.params, extra, server));
  traceServer(server);

  // Notifications before the handshake completes would reach a client that cannot place them yet.
  let initialized = false;
  const onInitialized = server.oninitialized;
  server.oninitialized = () => {
    initialized = true;
    onInitialized?.();
  };
  const onChange = (event?: ToolListEvent) => {
    // A search that loaded tools changed only the searching session's list.
    if (event?.kind === 'loaded' && event.sessionId !== server.transport?.sessionId) return;
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

/** Why a tool list may have changed: the exposure moved (every session's), or a tool_search loaded tools into one session. */
type ToolListEvent = { kind: 'change' } | { kind: 'loaded'; sessionId: string | undefined };

/** Where a server hears that the tool list changed: subscribe a listener, get its unsubscribe. */
type ChangeSource = (listener: (event: ToolListEvent) => void) => () => void;

/** Subscribes `emit` to the host's 'change' and 'loaded' events; returns the function that unsubscribes. */
function listenToHost(host: ToolHost, emit: (event: ToolListEvent) => void): () => void {
  const onChange = () => emit({ kind: 'change' });
  const onLoaded = (entry: HostEvents['loaded'][0]) => emit({ kind: 'loaded', sessionId: entry.sessionId });
  host.on('change', onChange);
  host.on('loaded', onLoaded);
  return () => {
    host.off('change', onChange);
    host.off('loaded', onLoaded);
  };
}

/** The host's own events, listened to once per server (fine for stdio's single connection). */
function hostChanges(host: ToolHost): ChangeSource {
  return (listener) => listenToHost(host, listener);
}

/**
 * One host listener fanned out to any number of servers, so many sessions
 * add no listeners to the host (and cannot trip its MaxListeners warning).
 * `dispose` removes the host listener.
 */
export function sharedChanges(host: ToolHost): { source: ChangeSource; dispose(): void; readonly listeners: number } {
  const listeners = new Set<(event: ToolListEvent) => void>();
  const fanOut = (event: ToolListEvent) => {
    for (const listener of listeners) listener(event);
  };
  const unlisten = listenToHost(host, fanOut);
  return {
    source: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    dispose: () => {
      unlisten();
      listeners.clear();
    },
    get listeners() {
      return listeners.size;
    },
  };
}
