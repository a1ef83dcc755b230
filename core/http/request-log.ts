/**
 * The request log of a listener: one entry per request once it was answered (its method, path,
 * status and time, who sent it, and what its handler noted: the JSON-RPC method, the tool, the
 * session), handed to `onRequest`. serve prints it on stderr (`--quiet` turns it off).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestLogEntry } from './public-types.js';

/** What a handler notes of a request for its log line. */
export type RequestNote = Pick<RequestLogEntry, 'rpc' | 'tool' | 'session'>;

/** A session id as the request log shows it: its replica prefix and the first 8 characters of its uuid. */
export function shortSession(id: string): string {
  const dot = id.lastIndexOf('.');
  return dot < 0 ? id.slice(0, 8) : `${id.slice(0, dot + 1)}${id.slice(dot + 1, dot + 9)}`;
}

/** The log entries of one listener's requests. */
export class RequestLog {
  // What each request's handler noted, for its log line.
  private readonly notes = new WeakMap<IncomingMessage, RequestNote>();

  constructor(
    private readonly onRequest: ((entry: RequestLogEntry) => void) | undefined,
    /** the header a request names its session in */
    private readonly sessionHeader: string | undefined,
  ) {}

  /** Adds `note` to what the log line of `req` says. */
  note(req: IncomingMessage, note: RequestNote): void {
    this.notes.set(req, { ...this.notes.get(req), ...note });
  }

  /** What was noted of `req` so far. */
  noted(req: IncomingMessage): RequestNote | undefined {
    return this.notes.get(req);
  }

  /** Logs `req` once `res` closes, if anyone listens; `fail` is told when writing the entry throws. */
  watch(req: IncomingMessage, res: ServerResponse, client: string, fail: (error: unknown) => void): void {
    const { onRequest } = this;
    if (!onRequest) return;
    const started = performance.now();
    res.once('close', () => {
      try {
        onRequest(this.entry(req, res, started, client));
      } catch (error) {
        fail(error);
      }
    });
  }

  /** The entry of `req`, answered with `res`, started at `started` (performance.now()). */
  entry(req: IncomingMessage, res: ServerResponse, started: number, client: string): RequestLogEntry {
    const named = this.sessionHeader === undefined ? undefined : req.headers[this.sessionHeader];
    const header = this.sessionHeader === undefined ? undefined : res.getHeader(this.sessionHeader);
    const session = named ?? this.notes.get(req)?.session ?? header;
    return {
      method: req.method ?? '?',
      path: new URL(req.url ?? '/', 'http://localhost').pathname,
      status: res.statusCode,
      ms: Math.round(performance.now() - started),
      ...this.notes.get(req),
      ...(typeof session === 'string' ? { session: shortSession(session) } : {}),
      client,
    };
  }
}
