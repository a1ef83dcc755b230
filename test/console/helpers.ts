/**
 * What the console tests share: the scenario's config, JSON requests with the console's marks, and an SSE reader over a
 * streaming fetch.
 */
import { fixture } from '../helpers.js';

/** A value planted in the environment and in an MCP entry's headers: no API answer or event may contain it. */
export const MARKER = 'marker-secret-5c1e9a';

/**
 * The console scenario: the ops plugin, delete_note held for approval, a remote MCP entry whose headers carry the
 * marker.
 */
export function consoleConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    builtins: false,
    plugins: [{ package: fixture('console', 'ops'), trust: 'trusted' }],
    approve: ['delete_note'],
    // Nothing listens there: the server is unreachable, and its headers must stay out of every answer.
    mcpServers: { remote: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer ${MARKER}` } } },
    ...extra,
  };
}

/** A state-changing request as the page sends it. */
export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-toolshed-console': '1', ...headers },
    body: JSON.stringify(body),
  });
}

/** One server-sent event. */
export interface ConsoleEvent {
  event: string;
  data: unknown;
}

/** An open `api/events` stream: every event so far, and a wait for the next one that matches. */
export interface EventReader {
  readonly events: ConsoleEvent[];
  /** all the text received, comments included */
  readonly text: string;
  next(match: (event: ConsoleEvent) => boolean, timeoutMs?: number): Promise<ConsoleEvent>;
  close(): void;
}

/** Opens `url` (an api/events URL) with a streaming fetch and parses its events as they come. */
export async function readEvents(url: string, headers: Record<string, string> = {}): Promise<EventReader> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  if (response.status !== 200) throw new Error(`events: HTTP ${response.status}`);
  const events: ConsoleEvent[] = [];
  const waiters = new Set<() => void>();
  let text = '';
  let buffer = '';
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        const piece = decoder.decode(chunk, { stream: true });
        text += piece;
        buffer += piece;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event !== undefined && data !== undefined) events.push({ event, data: JSON.parse(data) });
          end = buffer.indexOf('\n\n');
        }
        for (const wake of waiters) wake();
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    events,
    get text() {
      return text;
    },
    next(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching event within ${timeoutMs} ms; got ${events.map((e) => e.event).join(', ')}`));
        }, timeoutMs);
        const check = () => {
          const found = events.find(match);
          if (!found) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        check();
      });
    },
    close: () => controller.abort(),
  };
}
