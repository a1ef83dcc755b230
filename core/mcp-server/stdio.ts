/**
 * `toolshed serve` over stdio: one client, on this process's stdin and stdout,
 * one bounded message at a time. The SDK's `serveStdio` decides the protocol
 * era from the client's opening (2026-07-28, or a 2025 `initialize`) and
 * serves the connection from one server, which is one toolshed session.
 */
import type { Server } from '@modelcontextprotocol/server';
import { serveStdio as serveStdioEntry } from '@modelcontextprotocol/server/stdio';
import { LineLimitedInput, type OversizedMessage } from './line-limit.js';
import { createMcpServer, newSession } from './server.js';
import { LineTransport } from './stdio-transport.js';
import { startRefreshLoop } from './refresh-loop.js';
import { guardStdout } from './stdout-guard.js';
import type { ToolHost } from '../host/host.js';

/** A running MCP endpoint. */
export interface McpEndpoint {
  /** settles when the client went away (stdin closed) or close() was called */
  closed: Promise<void>;
  /** stops serving; in-flight calls are cancelled. The host stays open. */
  close(): Promise<void>;
}

/** JSON-RPC's invalid-request code. */
const INVALID_REQUEST = -32600;

/** The message answering a request too large to read. */
function oversizedMessage(message: OversizedMessage, limit: number): string {
  const what = message.method ? `${message.method} request` : 'request';
  return `${what} of ${message.bytes} bytes is over the limit of ${limit} bytes for one message (serve.maxMessageBytes); it was not read. Send less data in one call, e.g. write a large file in parts.`;
}

/**
 * Serves `host` over stdin/stdout until stdin closes. Logs must go to stderr.
 * `onInitialized` runs once a 2025-era client's handshake is done (a
 * 2026-07-28 client has none). A line over `host.config.serve.maxMessageBytes`
 * is dropped and its request answered with an error; the server keeps serving.
 */
export async function serveStdio(host: ToolHost, onError: (error: unknown) => void = () => {}, onInitialized?: (server: Server) => void): Promise<McpEndpoint> {
  const guard = guardStdout();
  const session = newSession();
  const limit = host.config.serve.maxMessageBytes;
  const input = new LineLimitedInput(process.stdin, limit, (message) => {
    onError(new Error(`dropped a message of ${message.bytes} bytes, over serve.maxMessageBytes (${limit})${message.id === undefined ? '' : `; answered request ${JSON.stringify(message.id)} with an error`}`));
    if (message.id === undefined) return;
    transport.send({ jsonrpc: '2.0', id: message.id, error: { code: INVALID_REQUEST, message: oversizedMessage(message, limit), data: { bytes: message.bytes, limit } } }).catch(onError);
  });
  const transport = new LineTransport(input, guard.protocol, () => finish());
  const stopRefresh = startRefreshLoop(host, onError);
  let done!: () => void;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    session.rounds.close();
    stopRefresh();
    guard.restore();
    process.stdin.off('end', close);
    process.stdin.off('close', close);
    done();
  };
  const handle = serveStdioEntry(
    () => {
      const server = createMcpServer(host, { session, network: 'pipe' });
      if (onInitialized) {
        const previous = server.oninitialized;
        server.oninitialized = () => {
          previous?.();
          onInitialized(server);
        };
      }
      return server;
    },
    { transport, onerror: onError },
  );
  async function close(): Promise<void> {
    await handle.close();
    finish();
  }
  // The transport reacts to data and errors only; a client that exits just closes our stdin.
  process.stdin.once('end', close);
  process.stdin.once('close', close);
  return { closed, close };
}
