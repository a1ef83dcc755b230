/**
 * The console's server-sent events (`GET api/events`): every open stream gets
 * each event as it happens, a `: ping` comment every 15 s so proxies keep it
 * open, and its own view of calls (with or without payloads). Streams end
 * when the console closes. A client that stops reading is cut off once
 * MAX_BUFFERED_BYTES wait for it, so it cannot make the server hold an
 * unbounded backlog (it reconnects and starts again from `hello`). Events
 * are gathered per stream and written every FLUSH_MS, so a busy host pays one
 * socket write per stream every few milliseconds, not one per call (a person
 * cannot tell 10 ms apart; docs/performance.md, scenario 20).
 */
import type { ServerResponse } from 'node:http';
import { secure } from './replies.js';
import { systemClock, timers, type TimerHandle, type Timers } from '../state/clock.js';
import type { Clock } from '../state/clock.js';

/** How often an idle stream gets a comment line. */
const PING_MS = 15_000;

/** How long an event may wait to be written with the ones after it. */
const FLUSH_MS = 10;

/** The most a stream may have waiting to be sent before it is cut off. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** An event's data for one stream: the same for all, or by whether the stream asked for payloads. */
export type EventData = unknown | ((payloads: boolean) => unknown);

/** Whether a stream may see an event (an identity under a narrower access rule sees only its own calls). */
export type EventFilter = (event: string, data: unknown) => boolean;

interface Stream {
  res: ServerResponse;
  payloads: boolean;
  filter?: EventFilter;
  /** events waiting for this turn's write */
  pending: string[];
}

/** The open event streams. */
export class EventStreams {
  private readonly streams = new Set<Stream>();
  private stopPinging: (() => void) | undefined;
  private flushing: TimerHandle | undefined;
  private readonly timers: Timers;
  /** the pings' timers: real ones are unref'd */
  private readonly pings: Timers;

  /** @param clock the pings' and the flushes' timers (default the real ones) */
  constructor(clock: Clock = systemClock) {
    this.timers = timers(clock);
    this.pings = timers(clock, { unref: true });
  }

  get size(): number {
    return this.streams.size;
  }

  /** Opens a stream on `res` and sends it `hello` first. */
  open(res: ServerResponse, payloads: boolean, hello: unknown, filter?: EventFilter): void {
    secure(res);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const stream: Stream = { res, payloads, pending: [], ...(filter ? { filter } : {}) };
    this.streams.add(stream);
    res.once('close', () => {
      this.streams.delete(stream);
      if (this.streams.size === 0) this.stopTimer();
    });
    this.write(stream, `event: hello\ndata: ${JSON.stringify(hello)}\n\n`);
    this.stopPinging ??= this.pings.every(PING_MS, () => {
      for (const open of this.streams) this.write(open, ': ping\n\n');
    });
  }

  /** Sends `event` to every stream, its data as one line of JSON (JSON escapes every newline). */
  send(event: string, data: EventData): void {
    for (const stream of this.streams) {
      const value = typeof data === 'function' ? (data as (payloads: boolean) => unknown)(stream.payloads) : data;
      if (stream.filter && !stream.filter(event, value)) continue;
      this.write(stream, `event: ${event}\ndata: ${JSON.stringify(value)}\n\n`);
    }
  }

  /** Ends every stream, after what is waiting for it. */
  close(): void {
    this.stopTimer();
    this.timers.cancel(this.flushing);
    this.flushing = undefined;
    for (const stream of this.streams) {
      this.flush(stream);
      stream.res.end();
    }
    this.streams.clear();
  }

  private stopTimer(): void {
    this.stopPinging?.();
    this.stopPinging = undefined;
  }

  /** Queues `text` for `stream`'s next write. */
  private write(stream: Stream, text: string): void {
    stream.pending.push(text);
    this.flushing ??= this.timers.after(FLUSH_MS, () => {
      this.flushing = undefined;
      for (const open of [...this.streams]) this.flush(open);
    });
  }

  /** Writes what waits for `stream`, or cuts the stream off when its client has left too much unread. */
  private flush(stream: Stream): void {
    if (!stream.pending.length) return;
    stream.res.write(stream.pending.join(''));
    stream.pending = [];
    if (stream.res.writableLength <= MAX_BUFFERED_BYTES) return;
    this.streams.delete(stream);
    stream.res.destroy();
  }
}
