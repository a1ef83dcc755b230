/**
 * Where audit lines go: a file (opened for appending, created 0600) or the process's stdout or
 * stderr. Lines are gathered for a few milliseconds and handed to a write stream together (one
 * write for a busy moment's calls, not one each), and reach it in order while calls go on without
 * waiting for the disk; `close()` writes out what is gathered and waits until every line is written. A sink that fails
 * (a full
 * disk, a closed pipe) never fails a call: the host warns once, and every line that could not be
 * written is counted as dropped (explain shows the count).
 */
import { open } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { ConfigError } from '../../boundary/errors.js';
import type { AuditReport } from './public-types.js';
import { systemClock, timers, type TimerHandle, type Timers } from '../state/clock.js';
import type { Clock } from '../state/clock.js';

/**
 * Past this many bytes queued and not yet written, a line is dropped (and counted) instead of
 * queued: the sink has stopped keeping up, and holding more would only grow the host's memory.
 */
const MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/**
 * How long a line waits for others to be written with it: a write per call would cost each call more than the rest of
 * its audit.
 */
const GATHER_MS = 10;

/** A line sink over a write stream, counting what it wrote and dropped. */
export class AuditSink {
  private written = 0;
  private dropped = 0;
  /** lines handed to the stream whose write has not finished */
  private queued = 0;
  /** lines gathered for the next write, and their size with newlines */
  private gathered: string[] = [];
  private gatheredBytes = 0;
  private gathering: TimerHandle | undefined;
  private readonly timers: Timers;
  /** why lines are dropped: the stream's error; once set, nothing more is written */
  private failure: string | undefined;
  private warned = false;
  private closed = false;
  /** resolves `close()` once `queued` is back to 0 */
  private settled: (() => void) | undefined;

  private constructor(
    readonly to: string,
    private readonly stream: Writable,
    /** the file's stream is the sink's own to end; stdout and stderr are the process's */
    private readonly owned: boolean,
    private readonly warn: (message: string) => void,
    clock: Clock,
  ) {
    this.timers = timers(clock);
    if (owned) stream.on('error', (error) => this.fail(error.message));
  }

  /**
   * Opens `to` ('stdout', 'stderr' or an absolute file); a file that cannot be opened for appending is CONFIG_INVALID.
   */
  static async open(to: string, warn: (message: string) => void, clock: Clock = systemClock): Promise<AuditSink> {
    if (to === 'stdout' || to === 'stderr') return new AuditSink(to, process[to], false, warn, clock);
    try {
      const handle = await open(to, 'a', 0o600);
      return new AuditSink(to, handle.createWriteStream(), true, warn, clock);
    } catch (error) {
      throw new ConfigError(
        `audit.to ${to} cannot be opened for appending: ${(error as Error).message}`,
        { pointer: '/audit/to', fix: 'name a file the host may create or append to, outside the workspace' },
        { cause: error },
      );
    }
  }

  /** Queues one line (without its newline); never throws and never waits. */
  write(line: string): void {
    if (this.closed) return this.drop('the host is closed');
    if (this.failure !== undefined) return this.drop(this.failure);
    if (this.stream.writableLength + this.gatheredBytes > MAX_QUEUED_BYTES)
      return this.drop(`more than ${MAX_QUEUED_BYTES} bytes of lines wait to be written`);
    this.gathered.push(line);
    this.gatheredBytes += line.length + 1;
    this.gathering ??= this.timers.after(GATHER_MS, () => this.flush());
  }

  /** Hands the gathered lines to the stream in one write. */
  private flush(): void {
    this.timers.cancel(this.gathering);
    this.gathering = undefined;
    const lines = this.gathered;
    if (!lines.length) return;
    this.gathered = [];
    this.gatheredBytes = 0;
    if (this.failure !== undefined) return this.drop(this.failure, lines.length);
    this.queued += lines.length;
    this.stream.write(`${lines.join('\n')}\n`, (error) => {
      this.queued -= lines.length;
      if (error) {
        this.fail(error.message);
        this.drop(error.message, lines.length);
      } else this.written += lines.length;
      if (this.queued === 0) this.settled?.();
    });
  }

  /** The target and its counts, for explain. */
  report(): AuditReport {
    return {
      to: this.to,
      written: this.written,
      dropped: this.dropped,
      ...(this.failure !== undefined ? { failure: this.failure } : {}),
    };
  }

  /** Writes out every queued line, then closes the file (stdout and stderr stay open). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.flush();
    if (this.queued > 0) await new Promise<void>((resolve) => (this.settled = resolve));
    if (!this.owned || this.stream.destroyed) return;
    await new Promise<void>((resolve) => {
      this.stream.once('close', resolve);
      this.stream.end();
    });
  }

  private fail(reason: string): void {
    this.failure ??= reason;
  }

  /** Counts lines that were not written, and warns the first time. */
  private drop(reason: string, lines = 1): void {
    this.dropped += lines;
    if (this.warned) return;
    this.warned = true;
    this.warn(
      `the audit log ${this.to} is dropping lines (${reason}); calls go on, and explain counts the lines dropped`,
    );
  }
}
