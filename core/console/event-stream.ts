/**
 * The console's server-sent events (`GET api/events`): every open stream gets
 * each event as it happens, a `: ping` comment every 15 s so proxies keep it
 * open, and its own view of calls (with or without payloads). Streams end
 * when the console closes.
 */
import type { ServerResponse } from 'node:http';
import { secure } from './replies.js';

/** How often an idle stream gets a comment line. */
const PING_MS = 15_000;

/** An event's data for one stream: the same for all, or by whether the stream asked for payloads. */
export type EventData = unknown | ((payloads: boolean) => unknown);

interface Stream {
  res: ServerResponse;
  payloads: boolean;
}

/** The open event streams. */
export class EventStreams {
  private readonly streams = new Set<Stream>();
  private timer: NodeJS.Timeout | undefined;

  get size(): number {
    return this.streams.size;
  }

  /** Opens a stream on `res` and sends it `hello` first. */
  open(res: ServerResponse, payloads: boolean, hello: unknown): void {
    secure(res);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    const stream = { res, payloads };
    this.streams.add(stream);
    res.once('close', () => {
      this.streams.delete(stream);
      if (this.streams.size === 0) this.stopTimer();
    });
    write(res, 'hello', hello);
    this.timer ??= setInterval(() => {
      for (const { res: open } of this.streams) open.write(': ping\n\n');
    }, PING_MS).unref();
  }

  /** Sends `event` to every stream. */
  send(event: string, data: EventData): void {
    for (const stream of this.streams) write(stream.res, event, typeof data === 'function' ? (data as (payloads: boolean) => unknown)(stream.payloads) : data);
  }

  /** Ends every stream. */
  close(): void {
    this.stopTimer();
    for (const { res } of this.streams) res.end();
    this.streams.clear();
  }

  private stopTimer(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** One event: its name and its data as one line of JSON (JSON escapes every newline). */
function write(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}
