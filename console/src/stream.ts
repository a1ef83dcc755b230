/**
 * The live stream (`api/events`): read with fetch() and a ReadableStream so it carries the
 * Authorization header, reconnected with a growing delay (0.5 s doubling to 10 s, back to 0.5 s
 * once an answer arrives) until closed. A 401 stops it and asks for a token; the page opens a new
 * one once it has the token.
 */
import { apiUrl, authHeaders, unauthorized } from './api.js';
import { type ServerEvent, sseParser } from './sse.js';

/** Where the stream stands, for the header. */
export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'signed out' | 'closed';

/** What the stream reports to the page. */
export interface StreamHandlers {
  event(event: ServerEvent): void;
  state(state: StreamState): void;
}

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 10_000;

/** Opens the stream (with arguments and results when `payloads`); the function it returns closes it. */
export function openStream(payloads: boolean, handlers: StreamHandlers): () => void {
  const controller = new AbortController();
  const { signal } = controller;
  let delay = FIRST_DELAY_MS;

  const readOnce = async (): Promise<'again' | 'stop'> => {
    const response = await fetch(apiUrl(payloads ? 'events?payloads=1' : 'events'), {
      headers: { Accept: 'text/event-stream', ...authHeaders() },
      signal,
      cache: 'no-store',
    });
    if (response.status === 401) {
      handlers.state('signed out');
      unauthorized();
      return 'stop';
    }
    if (!response.ok || !response.body) return 'again';
    delay = FIRST_DELAY_MS;
    handlers.state('live');
    const parser = sseParser(handlers.event);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return 'again';
      parser.push(value);
    }
  };

  const run = async (): Promise<void> => {
    handlers.state('connecting');
    while (!signal.aborted) {
      const next = await readOnce().catch(() => 'again' as const);
      if (signal.aborted || next === 'stop') return;
      handlers.state('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
  };
  void run();
  return () => {
    controller.abort();
    handlers.state('closed');
  };
}
