/** `toolshed serve` over stdio: one client, on this process's stdin and stdout, one bounded message at a time. */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, type JSONRPCError } from '@modelcontextprotocol/sdk/types.js';
import { LineLimitedInput, type OversizedMessage } from './line-limit.js';
import { createMcpServer } from './server.js';
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

/** The JSON-RPC error answering a request too large to read. */
function oversizedError(message: OversizedMessage, limit: number): JSONRPCError | undefined {
  if (message.id === undefined) return undefined;
  const what = message.method ? `${message.method} request` : 'request';
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: {
      code: ErrorCode.InvalidRequest,
      message: `${what} of ${message.bytes} bytes is over the limit of ${limit} bytes for one message (serve.maxMessageBytes); it was not read. Send less data in one call, e.g. write a large file in parts.`,
      data: { bytes: message.bytes, limit },
    },
  };
}

/**
 * Serves `host` over stdin/stdout until stdin closes. Logs must go to stderr.
 * `onInitialized` runs once the client's handshake is done. A line over
 * `host.config.serve.maxMessageBytes` is dropped and its request answered
 * with an error; the server keeps serving.
 */
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
  const limit = host.config.serve.maxMessageBytes;
  const input = new LineLimitedInput(process.stdin, limit, (message) => {
    onError(new Error(`dropped a message of ${message.bytes} bytes, over serve.maxMessageBytes (${limit})${message.id === undefined ? '' : `; answered request ${JSON.stringify(message.id)} with an error`}`));
    const reply = oversizedError(message, limit);
    if (reply) transport.send(reply).catch(onError);
  });
  // The input hands the transport whole lines within the limit, so its own read buffer never overflows.
  const transport = new StdioServerTransport(input as unknown as Readable, guard.protocol as unknown as Writable, { maxBufferSize: limit + 2 });
  const stopRefresh = startRefreshLoop(host, onError);
  let done!: () => void;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  transport.onclose = () => {
    input.dispose();
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
