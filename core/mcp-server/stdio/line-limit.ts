/**
 * The stdio server's input, one JSON-RPC message (line) at a time and none
 * longer than a limit. The SDK's stdio transport closes itself when its read
 * buffer passes 10 MB, so one large `tools/call` used to end the server; here
 * a line over the limit never reaches the transport: its bytes are dropped as
 * they arrive, and only its top level (`jsonrpc`, `id`, `method`, with nested
 * values left out) is kept so the request can be answered with an error.
 */
import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';

/** Bytes of a dropped line's top level kept to find its id. */
const OUTLINE_MAX_BYTES = 8 * 1024;

/** What is known of a line that was dropped for its size. */
export interface OversizedMessage {
  /** the line's length in bytes, without its newline */
  bytes: number;
  /** the request id, when the line was a request whose top level could be read */
  id?: string | number;
  method?: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const OPENERS = new Set([0x7b, 0x5b]); // { [
const CLOSERS = new Set([0x7d, 0x5d]); // } ]
const NULL_BYTES = Buffer.from('null');

/**
 * Reads the top level of a JSON object from its bytes as they stream by: every
 * nested object or array is replaced by `null`, so `{"id":5,"params":{…11 MB…}}`
 * becomes `{"id":5,"params":null}`, small enough to parse.
 */
export class OutlineScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private overflow = false;

  /** Feeds the next bytes of the line. */
  write(bytes: Buffer): void {
    let runStart = -1;
    const flush = (end: number) => {
      if (runStart !== -1) this.keep(bytes.subarray(runStart, end));
      runStart = -1;
    };
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!;
      const top = this.depth <= 1;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
      } else if (byte === QUOTE) {
        this.inString = true;
      } else if (OPENERS.has(byte)) {
        this.depth++;
        if (this.depth === 2) {
          flush(i);
          this.keep(NULL_BYTES);
        }
      } else if (CLOSERS.has(byte)) {
        this.depth--;
        if (this.depth === 1) continue; // the end of a nested value: already kept as null
      }
      if (top && this.depth <= 1) {
        if (runStart === -1) runStart = i;
      } else {
        flush(i);
      }
    }
    flush(bytes.length);
  }

  private keep(bytes: Buffer): void {
    if (this.overflow) return;
    if (this.keptBytes + bytes.length > OUTLINE_MAX_BYTES) {
      this.overflow = true;
      return;
    }
    this.kept.push(Buffer.from(bytes));
    this.keptBytes += bytes.length;
  }

  /** The id and method of the message, when its top level was a readable JSON-RPC object. */
  result(): { id?: string | number; method?: string } {
    if (this.overflow) return {};
    try {
      const outline = JSON.parse(Buffer.concat(this.kept).toString('utf8')) as { id?: unknown; method?: unknown };
      const out: { id?: string | number; method?: string } = {};
      if (typeof outline.id === 'string' || (typeof outline.id === 'number' && Number.isFinite(outline.id)))
        out.id = outline.id;
      if (typeof outline.method === 'string') out.method = outline.method;
      return out;
    } catch {
      return {};
    }
  }
}

/**
 * The stdio input as the SDK transport reads it: an event source that emits one
 * whole line per `data` event, never one over `maxBytes`. It starts reading its
 * source only when the transport starts listening, so nothing is lost before.
 */
export class LineLimitedInput extends EventEmitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private dropping: { scanner: OutlineScanner; bytes: number } | undefined;
  private attached = false;
  private readonly onData = (chunk: Buffer | string) =>
    this.receive(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  private readonly onError = (error: unknown) => this.emit('error', error);

  constructor(
    private readonly source: Readable,
    public maxBytes: number,
    private readonly onOversized: (message: OversizedMessage) => void,
  ) {
    super();
    this.on('newListener', (event) => {
      if (event === 'data' && !this.attached) {
        this.attached = true;
        this.source.on('data', this.onData);
        this.source.on('error', this.onError);
      }
    });
  }

  /** Stops reading the source (the transport calls this when it closes). */
  pause(): this {
    this.source.pause();
    return this;
  }

  /** Detaches from the source for good. */
  dispose(): void {
    this.source.off('data', this.onData);
    this.source.off('error', this.onError);
    this.pending = [];
    this.dropping = undefined;
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      // The common case, a whole line within one chunk: handed on as it is, without copies.
      // The transport parses it before this returns, so the source reusing its memory later is harmless.
      if (newline !== -1 && this.pendingBytes === 0 && !this.dropping && newline - start <= this.maxBytes) {
        this.emit('data', chunk.subarray(start, newline + 1));
        start = newline + 1;
        continue;
      }
      const end = newline === -1 ? chunk.length : newline;
      this.take(chunk.subarray(start, end));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  }

  /** A piece of the current line. */
  private take(piece: Buffer): void {
    if (this.dropping) {
      this.dropping.scanner.write(piece);
      this.dropping.bytes += piece.length;
      return;
    }
    if (this.pendingBytes + piece.length <= this.maxBytes) {
      // Copied: the source may reuse its chunk's memory.
      this.pending.push(Buffer.from(piece));
      this.pendingBytes += piece.length;
      return;
    }
    // Over the limit: from here on the line is only scanned for its id, never kept.
    const scanner = new OutlineScanner();
    for (const part of this.pending) scanner.write(part);
    scanner.write(piece);
    this.dropping = { scanner, bytes: this.pendingBytes + piece.length };
    this.pending = [];
    this.pendingBytes = 0;
  }

  private endLine(): void {
    if (this.dropping) {
      const { scanner, bytes } = this.dropping;
      this.dropping = undefined;
      this.onOversized({ bytes, ...scanner.result() });
      return;
    }
    const line = Buffer.concat([...this.pending, Buffer.from([NEWLINE])]);
    this.pending = [];
    this.pendingBytes = 0;
    this.emit('data', line);
  }
}
