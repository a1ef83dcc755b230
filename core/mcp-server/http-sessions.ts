/**
 * The sessions of `toolshed serve --http`: at most `maxSessions` at once, and
 * a session with no request in flight for `idleMs` is closed (its SDK server,
 * transport and change listener go with it), so clients that vanish leave
 * nothing behind. One coarse timer sweeps them, only while any are open.
 */
import type { ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/server';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { closeSession, type McpSession } from './server.js';

/** One MCP session: its SDK server and transport, its held calls, and when it was last used. */
interface Session {
  server: Server;
  transport: NodeStreamableHTTPServerTransport;
  /** its toolshed session: its held calls and tasks are cancelled when it closes */
  session: McpSession;
  /** requests of this session still being answered (an open SSE stream counts) */
  active: number;
  lastSeen: number;
}

/** Open sessions, by id, with idle expiry and a cap. */
export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly idleMs: number,
    private readonly maxSessions: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** Whether a new session would be over the cap (after closing any that are idle). */
  async full(): Promise<boolean> {
    if (this.sessions.size < this.maxSessions) return false;
    await this.sweep();
    return this.sessions.size >= this.maxSessions;
  }

  add(id: string, session: Omit<Session, 'active' | 'lastSeen'>): void {
    this.sessions.set(id, { ...session, active: 0, lastSeen: this.now() });
    this.timer ??= setInterval(() => void this.sweep(), Math.min(60_000, Math.max(50, Math.floor(this.idleMs / 4)))).unref();
  }

  delete(id: string): void {
    const session = this.sessions.get(id);
    if (session) closeSession(session.session);
    this.sessions.delete(id);
    if (this.sessions.size === 0) this.stopTimer();
  }

  /** Counts `req` as activity of `session` until its response closes. */
  track(session: Session, res: ServerResponse): void {
    session.active++;
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      session.active--;
      session.lastSeen = this.now();
    };
    // 'close' fires once the response is done or its connection is gone.
    res.once('close', end);
  }

  /** Closes every session idle for longer than idleMs. */
  async sweep(): Promise<void> {
    const cutoff = this.now() - this.idleMs;
    const idle = [...this.sessions.entries()].filter(([, s]) => s.active === 0 && s.lastSeen <= cutoff);
    for (const [id] of idle) this.delete(id);
    await Promise.allSettled(idle.map(([, s]) => s.server.close()));
  }

  /** Closes every session and stops the timer. */
  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    for (const session of all) closeSession(session.session);
    this.sessions.clear();
    this.stopTimer();
    await Promise.allSettled(all.map((s) => s.server.close()));
  }

  private stopTimer(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
