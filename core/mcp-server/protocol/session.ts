/**
 * The toolshed session one MCP connection (stdio, a 2025-era HTTP session) or one request (the
 * 2026-07-28 revision, stateless HTTP) works in: its id keys the tools a tool_search loaded, and
 * its calls waiting on the client's user (approval, a server's elicitation) live in its
 * `InputRounds`, its calls made as tasks in its `TaskScope`.
 */
import { randomUUID } from 'node:crypto';
import type { ServerContext } from '@modelcontextprotocol/server';
import { InputRounds } from './input-rounds.js';
import { TaskScope } from './tasks-store.js';
import type { Clock } from '../../state/clock.js';

/** The toolshed session one MCP connection (or one stateless request) works in. */
export interface McpSession {
  /**
   * The host session (tool_search's loaded set, per-session tool state). Undefined means
   * "read it per request": the HTTP session id, else the `Mcp-Session-Id` header a client sent,
   * else a session of the request's own.
   */
  readonly id?: string;
  /** calls of this session waiting for an answer from the client (approval, elicitation) */
  readonly rounds: InputRounds;
  /** the session's calls made as tasks (2025-11-25); none for a session that lasts one request */
  readonly tasks?: TaskScope;
}

/** A fresh session with its own id, for a connection that lasts (stdio). */
export function newSession(clock?: Clock): McpSession {
  return { id: `mcp-${randomUUID()}`, rounds: new InputRounds(undefined, clock), tasks: new TaskScope({ clock }) };
}

/** Ends a session: its held calls and its tasks are cancelled. */
export function closeSession(session: McpSession): void {
  session.rounds.close();
  session.tasks?.close();
}

/**
 * A session whose id is read from each request (HTTP): a 2025-era HTTP session's own (with tasks), or per request
 * (without).
 */
export function requestScopedSession(kind: 'http-session' | 'per-request', clock?: Clock): McpSession {
  return kind === 'http-session'
    ? { rounds: new InputRounds(undefined, clock), tasks: new TaskScope({ clock }) }
    : { rounds: new InputRounds(undefined, clock) };
}

/**
 * The host session a request belongs to: the connection's, else the HTTP session's,
 * else the `Mcp-Session-Id` header a client sends to a stateless server; undefined
 * when it names none.
 */
export function sessionOf(session: McpSession, ctx: ServerContext): string | undefined {
  if (session.id !== undefined) return session.id;
  if (ctx.sessionId !== undefined) return ctx.sessionId;
  return ctx.http?.req?.headers.get('mcp-session-id') || undefined;
}

/** A session of a request's own: a request that names no session never shares another's state. */
export function ownSession(): string {
  return `request-${randomUUID()}`;
}
