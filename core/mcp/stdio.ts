/** `toolshed serve` over stdio: one client, on this process's stdin and stdout. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { createMcpServer } from './server.js';
import { startRefreshLoop } from './refresh-loop.js';
import { guardStdout } from './stdout-guard.js';
import type { ToolHost } from '../host.js';

/** A running MCP endpoint. */
export interface McpEndpoint {
  /** settles when the client went away (stdin closed) or close() was called */
  closed: Promise<void>;
  /** stops serving; in-flight calls are cancelled. The host stays open. */
  close(): Promise<void>;
}

/** Serves `host` over stdin/stdout until stdin closes. Logs must go to stderr. `onInitialized` runs once the client's handshake is done. */
export async function serveStdio(host: ToolHost, onError: (error: unknown) => void = () => {}, onInitialized?: (server: Server) => void): Promise<McpEndpoint> {
  const guard = guardStdout();
  const server = createMcpServer(host);
  if (onInitialized) {
    const previous = server.oninitialized;
    server.oninitialized = () => {
      previous?.();
      onInitialized(server);
    };
  }
  const transport = new StdioServerTransport(process.stdin, guard.protocol);
  const stopRefresh = startRefreshLoop(host, onError);
  let done!: () => void;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  transport.onclose = () => {
    stopRefresh();
    guard.restore();
    process.stdin.off('end', close);
    process.stdin.off('close', close);
    done();
  };
  transport.onerror = onError;
  async function close(): Promise<void> {
    await server.close();
  }
  // The transport reacts to data and errors only; a client that exits just closes our stdin.
  process.stdin.once('end', close);
  process.stdin.once('close', close);
  await server.connect(transport);
  return { closed, close };
}
