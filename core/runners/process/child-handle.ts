/**
 * One running process-tier child, seen from the host: the detached process
 * (its own process group), the framed channel (to the child on its stdin,
 * from it on its fd 3: see boundary/channel.ts), bounded tails of its
 * stdout and stderr, a resident-memory watchdog, and the requests waiting
 * for replies. Killing it always kills the whole process group with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { codedError } from '../../../boundary/errors.js';
import { FrameChannel } from '../../../boundary/channel.js';
import { checkChildFrame } from './frames.js';
import type { ChildCommand } from './spawn.js';
import { overLimitMessage, type ResourceLimits } from '../../../boundary/launch/resources.js';
import { watchResources } from '../../../boundary/launch/resource-watch.js';
import type { ChildInit, ChildTaskFrame, HostToChild } from '../../../boundary/protocol.js';

/** Why a child is gone. */
export interface ChildEnd {
  message: string;
  outOfMemory: boolean;
}

/** A request's result: the raw reply (checked by the caller), or the child's end. */
export type RequestResult = { kind: 'reply'; reply: unknown } | { kind: 'ended'; end: ChildEnd };

/** How to start one child. */
interface ChildStartOptions {
  command: ChildCommand;
  cwd: string;
  init: ChildInit;
  /** the largest frame accepted from the child */
  maxFrameBytes: number;
  startTimeoutMs: number;
  /** resident memory (all of the child's processes) above which it is killed; 0 disables the watchdog */
  rssBudgetMb: number;
  /** the child's heap limit (`--max-old-space-size`), for the message when it runs out */
  heapLimitMb: number;
  /**
   * its resource limits: the watchdog stops it past `processes` tasks, or past `memoryMb` when that is below
   * `rssBudgetMb`
   */
  limits?: ResourceLimits;
  /** inbound Comlink traffic */
  onRpc(data: unknown): void;
  /** a frame from the child that was dropped (one that broke the protocol) */
  onDropped(reason: string): void;
}

/** Bytes of each output stream kept for diagnostics; everything older is dropped as it arrives. */
const OUTPUT_TAIL_BYTES = 16 * 1024;

/** The last `capacity` bytes of a stream, and how many bytes went by. */
class OutputTail {
  private chunks: Buffer[] = [];
  private held = 0;
  /** every byte the stream produced */
  seen = 0;

  constructor(private readonly capacity = OUTPUT_TAIL_BYTES) {}

  /** Keeps the newest bytes of `chunk`, dropping the oldest held ones. */
  push(chunk: Buffer): void {
    this.seen += chunk.length;
    const piece = chunk.length > this.capacity ? chunk.subarray(chunk.length - this.capacity) : chunk;
    this.chunks.push(Buffer.from(piece));
    this.held += piece.length;
    while (this.held - this.chunks[0]!.length >= this.capacity) this.held -= this.chunks.shift()!.length;
  }

  /** Bytes currently held (at most about twice the capacity). */
  get bytes(): number {
    return this.held;
  }

  /** The held tail as text. */
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.capacity)).toString('utf8');
  }
}

/** A live child process and its channel. */
export class ChildHandle {
  /** stdout and stderr tails for crash messages */
  readonly stdout = new OutputTail();
  readonly stderr = new OutputTail();
  /** resolves once the child is gone, with why */
  readonly ended: Promise<ChildEnd>;
  /** resolves once the process and its pipes are closed */
  readonly closed: Promise<void>;
  private readonly process: ChildProcess;
  private readonly channel: FrameChannel;
  private readonly pending = new Map<string, (result: RequestResult) => void>();
  private endReason: ChildEnd | undefined;
  private exited = false;
  private resolveEnded!: (end: ChildEnd) => void;
  private unwatch: (() => void) | undefined;
  private ready: ((pid: number) => void) | undefined;

  private constructor(private readonly options: ChildStartOptions) {
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
    const { command } = options;
    this.process = spawn(command.command, command.args, {
      cwd: options.cwd,
      // Its own session and process group: the host can kill the group, and the child's signals to "its group" never
      // reach the host.
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      // Empty: granted variables travel in the init frame (see sandbox/child/child-main.ts).
      env: {},
    });
    this.closed = new Promise((resolve) => this.process.once('close', () => resolve()));
    this.process.once('error', (error) =>
      this.finish({ message: `could not start: ${error.message}`, outOfMemory: false }),
    );
    this.process.once('exit', (code, signal) => {
      this.exited = true;
      // Output still in flight when the process exits arrives before 'close'; wait briefly so crash messages include
      // it.
      const done = () => this.finish(this.exitReason(code, signal));
      const timer = setTimeout(done, 200);
      this.process.once('close', () => {
        clearTimeout(timer);
        done();
      });
    });
    (this.process.stdout as Readable).on('data', (chunk: Buffer) => this.stdout.push(chunk));
    (this.process.stderr as Readable).on('data', (chunk: Buffer) => this.stderr.push(chunk));
    this.channel = new FrameChannel(
      this.process.stdio[3] as Readable,
      this.process.stdin as Writable,
      options.maxFrameBytes,
      (message) => this.onFrame(message),
      (violation) => {
        options.onDropped(`channel violation: ${violation.message}`);
        this.kill({ message: `broke the channel protocol (${violation.message})`, outOfMemory: false });
      },
    );
    // An idle child must not keep the host's event loop alive; in-flight calls hold their own deadline timers.
    this.process.unref();
    for (const stream of this.process.stdio) (stream as { unref?: () => void } | null)?.unref?.();
    if (this.process.pid !== undefined && (options.rssBudgetMb > 0 || options.limits))
      this.unwatch = this.watch(this.process.pid, options);
  }

  /** The watchdog: the heap-derived RSS budget, or the `resources` limits where they are lower. */
  private watch(pid: number, options: ChildStartOptions): () => void {
    const { limits, rssBudgetMb } = options;
    const byResources = limits !== undefined && (rssBudgetMb <= 0 || limits.memoryMb < rssBudgetMb);
    const memoryMb = byResources ? limits.memoryMb : rssBudgetMb;
    return watchResources(pid, { processes: limits?.processes ?? 0, memoryMb }, (over) => {
      const message =
        over.limit === 'processes' || byResources
          ? `was stopped: ${overLimitMessage(over.limit, limits!, over.seen)}`
          : `used ${Math.round(over.seen)} MB of memory, over its budget of ${rssBudgetMb} MB`;
      this.kill({ message, outOfMemory: over.limit === 'memoryMb' });
    });
  }

  /** Spawns a child, sends its init frame and waits for it to report ready. */
  static async start(options: ChildStartOptions): Promise<ChildHandle> {
    const handle = new ChildHandle(options);
    const ready = new Promise<number>((resolve) => (handle.ready = resolve));
    handle.send(options.init);
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      ready.then(() => undefined),
      handle.ended,
      new Promise<ChildEnd>((resolve) => {
        timer = setTimeout(
          () => resolve({ message: `did not report ready within ${options.startTimeoutMs} ms`, outOfMemory: false }),
          options.startTimeoutMs,
        );
      }),
    ]);
    clearTimeout(timer);
    if (outcome) {
      handle.kill(outcome);
      throw codedError('TOOL_CRASHED', `the plugin's process ${outcome.message}${handle.diagnosis()}`);
    }
    return handle;
  }

  /** The process id the host sees (the group leader: unshare, or node itself). */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** Requests waiting for a reply. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Whether the child has ended (or its process exited and its end is being recorded). */
  get gone(): boolean {
    return this.endReason !== undefined || this.exited;
  }

  /** Sends a task and resolves with its reply, or with the child's end. */
  request(frame: ChildTaskFrame): Promise<RequestResult> {
    if (this.endReason) return Promise.resolve({ kind: 'ended', end: this.endReason });
    return new Promise((resolve) => {
      this.pending.set(frame.id, resolve);
      try {
        this.send(frame);
      } catch (error) {
        // Arguments JSON cannot carry (a cycle, a BigInt): the call fails, the child is fine.
        this.pending.delete(frame.id);
        resolve({
          kind: 'reply',
          reply: {
            ok: false,
            error: {
              name: 'TypeError',
              message: `the call could not be sent to the plugin's process: ${(error as Error).message}`,
            },
          },
        });
      }
    });
  }

  /** Sends one frame (dropped when the child is gone); throws when the frame is not JSON data. */
  send(frame: HostToChild): void {
    if (!this.endReason) this.channel.send(frame);
  }

  /** Kills the whole process group now; pending requests resolve with `end`. */
  kill(end: ChildEnd): void {
    if (!this.endReason) this.finish(end);
    const pid = this.process.pid;
    if (pid === undefined) return;
    try {
      // Negative pid: the group, so node under unshare (and anything it could start) goes too.
      process.kill(-pid, 'SIGKILL');
    } catch {
      this.process.kill('SIGKILL');
    }
  }

  /** The tail of stderr (or stdout) for an error message, or ''. */
  diagnosis(): string {
    const tail = (this.stderr.text() || this.stdout.text()).trim();
    return tail ? `; its last output: ${tail.slice(-1_000)}` : '';
  }

  private exitReason(code: number | null, signal: NodeJS.Signals | null): ChildEnd {
    // V8 gives no other sign of a heap exhausted on the main thread than this fatal line on
    // stderr before it aborts. Plugin code could print it too, which only mislabels its own crash.
    if (code !== 0 && /JavaScript heap out of memory/.test(this.stderr.text())) {
      return { message: `ran out of memory (limit ${this.options.heapLimitMb} MB)`, outOfMemory: true };
    }
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    return { message: `${how}${this.diagnosis()}`, outOfMemory: false };
  }

  private finish(end: ChildEnd): void {
    if (this.endReason) return;
    this.endReason = end;
    this.unwatch?.();
    this.channel.close();
    for (const resolve of this.pending.values()) resolve({ kind: 'ended', end });
    this.pending.clear();
    this.resolveEnded(end);
    // The exit of the group leader does not end the rest of the group; make sure nothing lingers.
    const pid = this.process.pid;
    if (pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  private onFrame(message: unknown): void {
    const frame = checkChildFrame(message);
    if (typeof frame === 'string') {
      this.options.onDropped(`invalid frame: ${frame}`);
      return this.kill({ message: `sent an invalid frame (${frame})`, outOfMemory: false });
    }
    switch (frame.type) {
      case 'ready':
        this.ready?.(frame.pid);
        this.ready = undefined;
        return;
      case 'rpc':
        return this.options.onRpc(frame.data);
      case 'reply': {
        // Replies for unknown ids (late, cancelled, or forged by plugin code writing to the fd) are ignored.
        const resolve = this.pending.get(frame.id);
        this.pending.delete(frame.id);
        resolve?.({ kind: 'reply', reply: frame.reply });
      }
    }
  }
}
