/**
 * The `subscriptions/listen` streams of named sessions on an HTTP endpoint
 * without MCP sessions (`--stateless`, where a request's `Mcp-Session-Id`
 * header names its toolshed session). A 2026-07-28 client's listen stream
 * normally hears only host-wide changes (the SDK's one event bus per
 * handler); a stream that names a session is served by a handler of that
 * session's own, so a tool_search that loaded tools into the session (on
 * any replica: the endpoint relays it through the state store) reaches that
 * session's streams and no other's. A session's handler lives while it has
 * a stream open, and all sessions together hold at most `maxStreams`
 * streams (a client cannot open handlers without bound by naming new ids).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, type Server } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';

/** One session's handler and how many of its streams are open. */
interface SessionHandler {
  handler: ReturnType<typeof createMcpHandler>;
  serve: ReturnType<typeof toNodeHandler>;
  open: number;
}

/** Whether `body` is a `subscriptions/listen` request. */
export function isListenRequest(body: unknown): boolean {
  return (body as { method?: unknown } | null)?.method === 'subscriptions/listen';
}

/** Listen streams grouped by the session they name. */
export class SessionStreams {
  private readonly sessions = new Map<string, SessionHandler>();
  private open = 0;

  constructor(
    private readonly factory: () => Server,
    private readonly limits: { maxBodyBytes: number; maxStreams: number },
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Serves a listen request of `sessionId` on that session's own handler; false (nothing written) when `maxStreams` are
   * open.
   */
  async serve(sessionId: string, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<boolean> {
    if (this.open >= this.limits.maxStreams) return false;
    let entry = this.sessions.get(sessionId);
    if (!entry) {
      const handler = createMcpHandler(this.factory, {
        legacy: 'reject',
        maxRequestBodySize: this.limits.maxBodyBytes,
        onerror: this.onError,
      });
      entry = { handler, serve: toNodeHandler(handler, { onerror: this.onError }), open: 0 };
      this.sessions.set(sessionId, entry);
    }
    const session = entry;
    session.open++;
    this.open++;
    res.once('close', () => {
      this.open--;
      if (--session.open > 0 || this.sessions.get(sessionId) !== session) return;
      this.sessions.delete(sessionId);
      void session.handler.close();
    });
    await session.serve(req, res, body);
    return true;
  }

  /** Tells the session's streams (every session's when none is named) that its tool list changed. */
  toolsChanged(sessionId?: string): void {
    if (sessionId === undefined) for (const { handler } of this.sessions.values()) handler.notify.toolsChanged();
    else this.sessions.get(sessionId)?.handler.notify.toolsChanged();
  }

  /** Ends every stream. */
  async close(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(all.map(({ handler }) => handler.close()));
  }
}
