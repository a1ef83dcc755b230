/**
 * `toolshed serve` over stdio: one client, on this process's stdin and stdout,
 * one bounded message at a time. The SDK's `serveStdio` decides the protocol
 * era from the client's opening (2026-07-28, or a 2025 `initialize`) and
 * serves the connection from one server, which is one toolshed session.
 */
import { STDIO_DEFAULT_MAX_BUFFER_SIZE, type Server } from '@modelcontextprotocol/server';
import { serveStdio as serveStdioEntry } from '@modelcontextprotocol/server/stdio';
import { LineLimitedInput, type OversizedMessage } from './line-limit.js';
import { buildMcpServer } from '../protocol/server.js';
import { closeSession, newSession, type McpSession } from '../protocol/session.js';
import { LineTransport } from './stdio-transport.js';
import { startRefreshLoop } from '../protocol/refresh-loop.js';
import { guardStdout } from './stdout-guard.js';
import { isOpening, whenOpen } from '../../host/opening-host.js';
import type { ToolHost } from '../../host/tool-host.js';
import type { McpEndpoint } from '../public-types.js';

/** A stdio endpoint, which also tells when it first answered the client. */
interface StdioEndpoint extends McpEndpoint {
  /** settles once the first message went out (the answer to the client's opening) */
  answered: Promise<void>;
}

/** The largest line passed on before the host (and its config's limit) is open. */
const EARLY_LINE_BYTES = 64 * 1024;

/** A held line's id and method, as far as they can be read. */
function outline(line: Buffer): { id?: string | number; method?: string } {
  try {
    const value = JSON.parse(line.toString('utf8')) as { id?: unknown; method?: unknown };
    return {
      ...(typeof value.id === 'string' || typeof value.id === 'number' ? { id: value.id } : {}),
      ...(typeof value.method === 'string' ? { method: value.method } : {}),
    };
  } catch {
    return {};
  }
}

/** JSON-RPC's invalid-request code. */
const INVALID_REQUEST = -32600;

/** The message answering a request too large to read. */
function oversizedMessage(message: OversizedMessage, limit: number): string {
  const what = message.method ? `${message.method} request` : 'request';
  return (
    `${what} of ${message.bytes} bytes is over the limit of ${limit} bytes for one message ` +
    `(serve.maxMessageBytes); it was not read. Send less data in one call, e.g. write a large file in parts.`
  );
}

/**
 * The lines dropped for their size: each is reported, and a request among them answered with an
 * error on the transport (set once it exists). The limit is the SDK's stdio buffer size (also
 * serve.maxMessageBytes' default) until the host's config names its own.
 */
class OversizedLines {
  limit = STDIO_DEFAULT_MAX_BUFFER_SIZE;
  transport: LineTransport | undefined;

  constructor(private readonly onError: (error: unknown) => void) {}

  readonly refuse = (message: OversizedMessage): void => {
    const { limit } = this;
    this.onError(
      new Error(
        `dropped a message of ${message.bytes} bytes, over serve.maxMessageBytes (${limit})` +
          `${message.id === undefined ? '' : `; answered request ${JSON.stringify(message.id)} with an error`}`,
      ),
    );
    if (message.id === undefined) return;
    this.transport!.send({
      jsonrpc: '2.0',
      id: message.id,
      error: {
        code: INVALID_REQUEST,
        message: oversizedMessage(message, limit),
        data: { bytes: message.bytes, limit },
      },
    }).catch(this.onError);
  };
}

/** The connection's one server, in `session`; `onInitialized` told once a 2025-era client's handshake is done. */
function serverFactory(host: ToolHost, session: McpSession, onInitialized?: (server: Server) => void): () => Server {
  return () => {
    const server = buildMcpServer(host, { session, network: 'pipe' });
    if (onInitialized) {
      const previous = server.oninitialized;
      server.oninitialized = () => {
        previous?.();
        onInitialized(server);
      };
    }
    return server;
  };
}

/**
 * Serves `host` over stdin/stdout until stdin closes. Logs must go to stderr.
 * `onInitialized` runs once a 2025-era client's handshake is done (a
 * 2026-07-28 client has none). A line over `host.config.serve.maxMessageBytes`
 * is dropped and its request answered with an error; the server keeps serving.
 */
export async function serveStdio(
  host: ToolHost,
  onError: (error: unknown) => void = () => {},
  onInitialized?: (server: Server) => void,
): Promise<StdioEndpoint> {
  const guard = guardStdout();
  const session = newSession(host.clock);
  // A host still opening (fast start) has no config yet: the default limit holds until it has.
  const ready = whenOpen(host);
  const oversized = new OversizedLines(onError);
  const input = new LineLimitedInput(process.stdin, oversized.limit, oversized.refuse);
  let answered!: () => void;
  const firstAnswer = new Promise<void>((resolve) => {
    answered = resolve;
  });
  const transport = new LineTransport(
    input,
    guard.protocol,
    () => finish(),
    () => answered(),
  );
  oversized.transport = transport;
  if (isOpening(host)) {
    // Opening messages are small; a large one waits for the config's limit, and is refused if over it.
    transport.holdUntil(
      ready.then((open) => open.config.serve.maxMessageBytes),
      EARLY_LINE_BYTES,
      (line) => oversized.refuse({ bytes: line.length - 1, ...outline(line) }),
    );
  }
  let stopRefresh = () => {};
  ready.then(
    (open) => {
      if (finished) return;
      oversized.limit = input.maxBytes = open.config.serve.maxMessageBytes;
      stopRefresh = startRefreshLoop(host, onError);
    },
    () => {},
  );
  let done!: () => void;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    closeSession(session);
    stopRefresh();
    guard.restore();
    process.stdin.off('end', close);
    process.stdin.off('close', close);
    done();
  };
  const handle = serveStdioEntry(serverFactory(host, session, onInitialized), { transport, onerror: onError });
  async function close(): Promise<void> {
    await handle.close();
    finish();
  }
  // The transport reacts to data and errors only; a client that exits just closes our stdin.
  process.stdin.once('end', close);
  process.stdin.once('close', close);
  return { closed, close, answered: firstAnswer };
}
