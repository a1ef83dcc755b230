/**
 * The child's side of its channel to the host: frames written to an inherited
 * fd with `fs` (Node 25+'s permission model refuses `new net.Socket({ fd })`
 * without `--allow-net`, and an fd-level write is not network). Writes go out
 * one at a time and in order (two `fs.write`s in flight run on two libuv
 * threads and may interleave); a partial write continues where it stopped;
 * EAGAIN, from an fd that whoever opened it left non-blocking, waits and
 * tries again. The pipe libuv gives a child is blocking: there a write waits
 * in its libuv thread while the host drains the pipe.
 */
import fs from 'node:fs';

// Taken before any plugin code runs: replacing fs.write later does not reach the channel.
const write = fs.write;

/** The longest wait between two tries of a write that got EAGAIN. */
const MAX_RETRY_MS = 50;

/** An ordered, complete writer of buffers to one file descriptor. */
export class FdWriter {
  private readonly queue: Buffer[] = [];
  private writing = false;
  private retryMs = 1;
  /** true once a write failed (the host closed its end) or destroy() was called */
  destroyed = false;

  constructor(
    private readonly fd: number,
    private readonly onError: (error: NodeJS.ErrnoException) => void = () => {},
  ) {}

  /** Queues `chunk`; false once the writer is destroyed. */
  write(chunk: Buffer): boolean {
    if (this.destroyed) return false;
    if (chunk.length) this.queue.push(chunk);
    if (!this.writing) this.next();
    return true;
  }

  /** Drops what is queued and writes nothing more (the fd stays open: the process exits soon after). */
  destroy(): void {
    this.destroyed = true;
    this.queue.length = 0;
  }

  /** Bytes queued and not yet written. */
  get pendingBytes(): number {
    return this.queue.reduce((sum, chunk) => sum + chunk.length, 0);
  }

  private next(): void {
    const chunk = this.queue[0];
    if (!chunk || this.destroyed) {
      this.writing = false;
      return;
    }
    this.writing = true;
    write(this.fd, chunk, 0, chunk.length, null, (error, written) => {
      if (error && (error.code === 'EAGAIN' || error.code === 'EWOULDBLOCK')) {
        setTimeout(() => this.next(), this.retryMs);
        this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
        return;
      }
      if (error) {
        this.destroy();
        this.writing = false;
        this.onError(error);
        return;
      }
      this.retryMs = 1;
      if (written < chunk.length) this.queue[0] = chunk.subarray(written);
      else this.queue.shift();
      this.next();
    });
  }
}
