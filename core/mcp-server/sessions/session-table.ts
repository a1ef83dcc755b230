/**
 * The sessions of `toolshed serve --http`: at most `maxSessions` at once and
 * `maxPerClient` per client, and a session with no request for `idleMs` is
 * closed (its SDK server, transport and change listener go with it), so
 * clients that vanish leave nothing behind. A request counts as activity
 * while it is answered; an open GET stream does not (a client that only
 * listens is idle), so a flood of listening sessions cannot hold the server.
 * When the server is full, the longest-idle session makes room for a new one;
 * only when every session has a request in flight is a new one refused. With
 * `serve.auth` a session belongs to the identity that opened it, and an
 * identity whose access rule has a `quota.sessions` holds at most that many
 * (its own idlest making room, as for a client).
 * One coarse timer sweeps them, only while any are open.
 */
import type { ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/server';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { closeSession, type McpSession } from '../protocol/session.js';
import type { CallerIdentity } from '../../../boundary/identity.js';
import type { SessionSnapshot } from '../public-types.js';
import { systemClock, timers, type Timers } from '../../state/clock.js';
import type { Clock } from '../../state/clock.js';

/** One MCP session: its SDK server and transport, its held calls, its client, and when it was last used. */
interface Session {
  server: Server;
  transport: NodeStreamableHTTPServerTransport;
  /** its toolshed session: its held calls and tasks are cancelled when it closes */
  session: McpSession;
  /** who opened it (`clientOf`) */
  client: string;
  /**
   * the identity that opened it (core/http/caller.ts's `ownerKey`; '' without `serve.auth`): only it may use the
   * session
   */
  owner: string;
  /** that identity, without its token (absent without `serve.auth`) */
  identity?: CallerIdentity;
  openedAt: number;
  /** requests of this session still being answered (GET streams excluded) */
  active: number;
  lastSeen: number;
}

/** Why a new session is not admitted: the HTTP status and the message for the client. */
interface Refusal {
  status: 429 | 503;
  message: string;
}

/** A slot held for a session being opened; released once it is added, or if it never is. */
interface Admission {
  release(): void;
}

/** The identity a new session is for, and the most sessions its access rule lets it hold (none: no cap of its own). */
interface SessionOwner {
  key: string;
  max?: number | undefined;
}

/** Open sessions, by id, with idle expiry, a cap in all and a cap per client. */
export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  /** sessions admitted but not yet added (their initialize is being answered), by client */
  private readonly opening = new Map<string, number>();
  /** likewise, by owner */
  private readonly openingFor = new Map<string, number>();
  private stopSweeping: (() => void) | undefined;
  private readonly timers: Timers;
  /** sessions closed to make room for another so far */
  evicted = 0;

  constructor(
    private readonly idleMs: number,
    private readonly maxSessions: number,
    private readonly maxPerClient: number = maxSessions,
    clock: Clock = systemClock,
  ) {
    this.timers = timers(clock);
  }

  private now(): number {
    return this.timers.now();
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /**
   * Holds a slot for a new session of `client` (for `owner`), or says why not. An owner at its
   * access rule's `quota.sessions`, or a client at its share, makes room by closing its own
   * longest-idle session (one that never closes its sessions churns its own, nobody else's), and
   * gets 429 only when each of its sessions has a request in flight or is still opening; a full
   * server closes the longest-idle session of anyone, and answers 503 only when every session has
   * a request in flight.
   */
  async admit(client: string, owner: SessionOwner = { key: '' }): Promise<Admission | Refusal> {
    const ownerFull = () => owner.max !== undefined && this.countOf(owner.key, 'owner') >= owner.max;
    if (ownerFull() || this.countOf(client, 'client') >= this.maxPerClient || this.total() >= this.maxSessions)
      await this.sweep();
    // From here on nothing awaits: a burst of opens sees each other's slots.
    if (ownerFull() && !this.evictIdlest((s) => s.owner === owner.key)) {
      return {
        status: 429,
        message:
          `Too many sessions for this identity: it holds ${this.countOf(owner.key, 'owner')}, its access rule ` +
          `allows ${owner.max}; close one (DELETE /mcp) or retry later`,
      };
    }
    const held = this.countOf(client, 'client');
    if (held >= this.maxPerClient && !this.evictIdlest((s) => s.client === client)) {
      return {
        status: 429,
        message:
          `Too many sessions for this client: it holds ${held}, the most is ${this.maxPerClient}; close one ` +
          `(DELETE /mcp) or retry later`,
      };
    }
    if (this.total() >= this.maxSessions && !this.evictIdlest())
      return { status: 503, message: 'Too many sessions open, each with a request in flight; retry later' };
    const releaseClient = hold(this.opening, client);
    const releaseOwner = hold(this.openingFor, owner.key);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        releaseClient();
        releaseOwner();
      },
    };
  }

  add(id: string, session: Omit<Session, 'active' | 'lastSeen' | 'openedAt'>): void {
    this.sessions.set(id, { ...session, active: 0, openedAt: this.now(), lastSeen: this.now() });
    this.stopSweeping ??= this.timers.every(
      Math.min(60_000, Math.max(50, Math.floor(this.idleMs / 4))),
      () => void this.sweep(),
      { unref: true },
    );
  }

  delete(id: string): void {
    const session = this.sessions.get(id);
    if (session) closeSession(session.session);
    this.sessions.delete(id);
    if (this.sessions.size === 0) this.stopTimer();
  }

  /**
   * The open sessions as the console lists them: who opened each, with which client, and when it was opened and last
   * used.
   */
  list(): SessionSnapshot[] {
    return [...this.sessions.entries()].map(([id, s]) => {
      const client = s.server.getClientVersion();
      return {
        id,
        ...(s.identity ? { identity: s.identity } : {}),
        ...(client ? { client: `${client.name} ${client.version}` } : {}),
        openedAt: s.openedAt,
        lastSeen: s.lastSeen,
      };
    });
  }

  /** Counts `req` (its method) as activity of `session` until its response closes; a GET stream only marks it seen. */
  track(session: Session, method: string | undefined, res: ServerResponse): void {
    session.lastSeen = this.now();
    if (method === 'GET') return;
    session.active++;
    // 'close' fires once the response is done or its connection is gone.
    res.once('close', () => {
      session.active--;
      session.lastSeen = this.now();
    });
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

  /**
   * Closes the session (of those `mine` picks, when given) with no request in flight that was seen longest ago (its
   * server in the background); whether there was one.
   */
  private evictIdlest(mine?: (session: Session) => boolean): boolean {
    let idlest: [string, Session] | undefined;
    for (const entry of this.sessions) {
      if (mine && !mine(entry[1])) continue;
      if (entry[1].active === 0 && (!idlest || entry[1].lastSeen < idlest[1].lastSeen)) idlest = entry;
    }
    if (!idlest) return false;
    this.delete(idlest[0]);
    this.evicted++;
    idlest[1].server.close().catch(() => {});
    return true;
  }

  /** Sessions open and opening of one client, or of one owner. */
  private countOf(who: string, by: 'client' | 'owner'): number {
    let count = (by === 'client' ? this.opening : this.openingFor).get(who) ?? 0;
    for (const session of this.sessions.values()) if (session[by] === who) count++;
    return count;
  }

  private total(): number {
    let count = this.sessions.size;
    for (const n of this.opening.values()) count += n;
    return count;
  }

  private stopTimer(): void {
    this.stopSweeping?.();
    this.stopSweeping = undefined;
  }
}

/** Counts one more opening session for `who` in `counts`; returns the function that counts it out. */
function hold(counts: Map<string, number>, who: string): () => void {
  counts.set(who, (counts.get(who) ?? 0) + 1);
  return () => {
    const left = (counts.get(who) ?? 1) - 1;
    if (left > 0) counts.set(who, left);
    else counts.delete(who);
  };
}
