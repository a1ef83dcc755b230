/**
 * The host ⇄ child channel of the process tier: length-prefixed JSON frames,
 * host to child on the child's stdin, child to host on the child's fd 3 (both
 * pipes), and a message-port look-alike that carries Comlink traffic inside
 * those frames.
 *
 * Why two pipes and not one duplex fd 3: the child cannot open a stream on an
 * inherited fd without `net` (`new net.Socket({ fd })`), which Node 25+'s
 * permission model refuses without `--allow-net`. The child writes fd 3 with
 * `fs` (child/fd-writer.ts); it cannot read it with `fs` without tying up a
 * libuv thread in a blocking read(2), and a process with such a read pending
 * never finishes exiting (the thread pool is joined at exit: `process.exit`
 * and uncaught exceptions hang until the host closes the pipe). stdin is a
 * stream Node opens for the child itself, evented and permitted.
 *
 * Why not Node's built-in `'ipc'` channel: plugin code in the child can write
 * raw bytes to the IPC fd (fd-level writes are not covered by the permission
 * model), and Node parses IPC input inside the parent's event loop with no
 * size limit and no error handling — one line of invalid JSON written there
 * throws an uncaught SyntaxError in the host and takes it down (verified on
 * Node 20.20). Here every frame is bounded, parsed in a try/catch, and a
 * violation only ever costs the child its life.
 */
import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';

const HEADER_BYTES = 4;

/** Why a peer's byte stream was rejected; the channel ignores everything after one. */
interface ChannelViolation {
  code: 'FRAME_TOO_LARGE' | 'FRAME_NOT_JSON';
  message: string;
}

/** One frame: a 4-byte big-endian length, then that many bytes of UTF-8 JSON. */
function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const frame = Buffer.allocUnsafe(HEADER_BYTES + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, HEADER_BYTES);
  return frame;
}

/** Incremental frame decoder with a hard size cap per frame. */
class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private failed = false;

  constructor(
    private readonly maxFrameBytes: number,
    private readonly onMessage: (message: unknown) => void,
    private readonly onViolation: (violation: ChannelViolation) => void,
  ) {}

  /** Feeds bytes read from the peer. */
  push(chunk: Buffer): void {
    if (this.failed || chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (!this.failed && this.buffered >= HEADER_BYTES) {
      const head = this.peek(HEADER_BYTES);
      const length = head.readUInt32BE(0);
      if (length > this.maxFrameBytes) {
        // Checked on the header, before the body is buffered: an oversized frame never costs its size.
        return this.fail({
          code: 'FRAME_TOO_LARGE',
          message: `a ${length}-byte frame exceeds the ${this.maxFrameBytes}-byte limit`,
        });
      }
      if (this.buffered < HEADER_BYTES + length) return;
      const frame = this.take(HEADER_BYTES + length);
      let message: unknown;
      try {
        message = JSON.parse(frame.toString('utf8', HEADER_BYTES));
      } catch (error) {
        return this.fail({ code: 'FRAME_NOT_JSON', message: `a frame is not JSON: ${(error as Error).message}` });
      }
      this.onMessage(message);
    }
  }

  private fail(violation: ChannelViolation): void {
    this.failed = true;
    this.chunks = [];
    this.buffered = 0;
    this.onViolation(violation);
  }

  private peek(bytes: number): Buffer {
    if (this.chunks[0]!.length < bytes) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!;
  }

  private take(bytes: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const frame = all.subarray(0, bytes);
    const rest = all.subarray(bytes);
    this.chunks = rest.length ? [rest] : [];
    this.buffered = rest.length;
    return frame;
  }
}

/** Where a channel writes its frames: a writable stream (the host's) or the child's fd writer. */
interface FrameSink {
  write(frame: Buffer): unknown;
  destroy(): void;
  readonly destroyed: boolean;
  on?(event: 'error', listener: () => void): unknown;
}

/** A framed, bounded message channel: frames in from `input`, out to `output`. */
export class FrameChannel {
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: FrameSink,
    maxInboundFrameBytes: number,
    onMessage: (message: unknown) => void,
    onViolation: (violation: ChannelViolation) => void,
  ) {
    const decoder = new FrameDecoder(maxInboundFrameBytes, onMessage, onViolation);
    input.on('data', (chunk: Buffer) => decoder.push(chunk));
    // A peer that goes away is reported by its exit; a write to a closed pipe must not throw.
    input.on('error', () => {});
    output.on?.('error', () => {});
    input.on('close', () => {
      this.closed = true;
    });
  }

  /** Sends one message; false when the channel is already closed; throws when it is not JSON data. */
  send(message: unknown): boolean {
    if (this.closed || this.output.destroyed) return false;
    this.output.write(encodeFrame(message));
    return true;
  }

  /** Stops reading and writing. */
  close(): void {
    this.closed = true;
    this.input.destroy();
    this.output.destroy();
  }
}

/**
 * A MessagePort look-alike for Comlink traffic carried in `rpc` frames: pass
 * it to comlink's `nodeEndpoint` (child side) or to `exposeGuardedEndpoint`
 * (host side). `deliver` hands it the data of each inbound `rpc` frame.
 */
export class RpcPort extends EventEmitter {
  constructor(private readonly sendFrame: (data: unknown) => void) {
    super();
  }

  /** Comlink's outbound messages; transfer lists cannot cross a process and are ignored. */
  postMessage(data: unknown): void {
    this.sendFrame(data);
  }

  /** Inbound Comlink messages. */
  deliver(data: unknown): void {
    this.emit('message', data);
  }

  /** Nothing to start: frames flow as soon as the channel exists. */
  start(): void {}
}
