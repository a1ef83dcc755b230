/**
 * The stdio transport of `toolshed serve`: one JSON-RPC message per line,
 * read from a `LineLimitedInput` (so no line over the limit ever arrives)
 * and answered on the protocol's stdout. Unlike the SDK's stdio transport it
 * answers what it cannot read, as JSON-RPC wants: a line that is not JSON
 * gets -32700 (parse error, id null), and JSON that is not a JSON-RPC message
 * gets -32600 (invalid request, with its id when it has one). The SDK's
 * `serveStdio` runs on top of it (its `transport` option).
 */
import {
  parseJSONRPCMessage,
  serializeMessage,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/server';
import type { LineLimitedInput } from './line-limit.js';

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** The id of a message that could not be read as JSON-RPC, when it has a usable one. */
function idOf(value: unknown): string | number | null {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** Where the transport writes: the protocol's stdout. */
interface LineOut {
  write(chunk: string, callback?: (error?: Error | null) => void): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/** A Transport over whole lines in, lines out. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private closed = false;
  /** lines waiting for the real size limit (see holdUntil) */
  private held: Buffer[] | undefined;
  private holdAbove = Infinity;
  private readonly onLine = (line: Buffer) => {
    if (this.held && (this.held.length > 0 || line.length > this.holdAbove)) this.held.push(Buffer.from(line));
    else this.receive(line.toString('utf8'));
  };
  private readonly onInputError = (error: unknown) =>
    this.onerror?.(error instanceof Error ? error : new Error(String(error)));

  constructor(
    private readonly input: LineLimitedInput,
    private readonly output: LineOut,
    /** told when the transport closed, whoever owns its onclose */
    private readonly onClosed: () => void = () => {},
    /** told after each message written */
    private readonly onSent: () => void = () => {},
  ) {}

  /**
   * Until `limit` settles, lines over `above` bytes wait (and every line after one that
   * waits, to keep the order); then each is checked against the limit it gives: a line over
   * it goes to `oversized` instead of the server.
   */
  holdUntil(limit: Promise<number>, above: number, oversized: (line: Buffer, limit: number) => void): void {
    this.held = [];
    this.holdAbove = above;
    limit.then(
      (max) =>
        this.release((line) => (line.length - 1 > max ? oversized(line, max) : this.receive(line.toString('utf8')))),
      () => this.release(() => {}),
    );
  }

  private release(each: (line: Buffer) => void): void {
    const lines = this.held ?? [];
    this.held = undefined;
    if (!this.closed) for (const line of lines) each(line);
  }

  async start(): Promise<void> {
    this.input.on('data', this.onLine);
    this.input.on('error', this.onInputError);
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.answer({
        jsonrpc: '2.0',
        id: null as never,
        error: { code: PARSE_ERROR, message: `Parse error: ${(error as Error).message}` },
      });
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      // A notification-shaped mistake has no one to answer; anything else is told what was wrong.
      const hasMethod = typeof (value as { method?: unknown } | null)?.method === 'string';
      const id = idOf(value);
      if (hasMethod && id === null && (value as object) !== null && !('id' in (value as object)))
        this.onerror?.(new Error('dropped a malformed notification'));
      else
        this.answer({
          jsonrpc: '2.0',
          id: id as never,
          error: {
            code: INVALID_REQUEST,
            message: 'Invalid Request: not a JSON-RPC 2.0 request, notification or response',
          },
        });
      return;
    }
    this.onmessage?.(message);
  }

  private answer(reply: JSONRPCErrorResponse): void {
    this.send(reply).catch((error) => this.onerror?.(error as Error));
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const ok = this.output.write(serializeMessage(message), (error) => (error ? reject(error) : undefined));
      this.onSent();
      if (ok) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onLine);
    this.input.off('error', this.onInputError);
    this.input.dispose();
    this.onclose?.();
    this.onClosed();
  }
}
