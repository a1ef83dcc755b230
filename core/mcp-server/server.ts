/**
 * The MCP server of one client connection (stdio, a 2025-era HTTP session)
 * or one request (the 2026-07-28 revision and stateless HTTP), built on the
 * SDK's low-level `Server` because the tool list is dynamic: `tools/list` is
 * the host's definitions in the mcp format at the moment of the request.
 * The SDK's serving entries (`serveStdio`, `createMcpHandler`) pick the
 * protocol era per connection or request and build an instance from here.
 *
 * Each connection is its own toolshed session (`McpSession`): its id keys
 * the tools a tool_search loaded, and its calls waiting on the client's user
 * (approval, a server's elicitation) live in its `InputRounds`.
 */
import { randomUUID } from 'node:crypto';
import type { Server, ServerContext, Tool } from '@modelcontextprotocol/server';
import { callTool, runAsTask, type CallMeter } from './call-tool.js';
import { installTasks, listedTools, TaskScope, TaskServer } from './tasks.js';
import { InputRounds } from './input-rounds.js';
import { callerOf, ownerKey } from './caller.js';
import type { SharedRounds } from './shared-rounds.js';
import type { StatelessClients } from './stateless-clients.js';
import { traceServer, type NetworkTransport } from './tracing.js';
import { TOOLSHED_VERSION } from '../../boundary/version.js';
import type { ToolHost } from '../host/host.js';
import type { Clock } from '../state/clock.js';
import type { HostEvents } from '../host/events.js';

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

/** The server's options. */
interface McpServerOptions {
  /** where list changes come from (default: the host's own events) */
  changes?: ChangeSource;
  /** the connection's session (default: a new one) */
  session?: McpSession;
  /** what carries the connection, for its traces */
  network?: NetworkTransport;
  /** the held calls of a fleet's other replicas, for a server made per request (http.ts) */
  shared?: SharedRounds;
  /** for a 2025-era client served per request (stateless HTTP): what its initialize declared */
  statelessClients?: StatelessClients;
  /** told of every tool call's outcome (serve's /metrics) */
  meter?: CallMeter | undefined;
  /** the host a request is served by (with `serve.auth`, its caller's identity view); default the server's own */
  hostFor?: (ctx: ServerContext) => ToolHost;
}

/**
 * Creates an SDK `Server` serving `host`'s tools; serve it with the SDK's
 * `serveStdio(() => server)` or `createMcpHandler(() => createMcpServer(host))`.
 * It stops listening to the host when it closes; the host stays open.
 * @example
 * import { serveStdio } from '@modelcontextprotocol/server/stdio';
 * serveStdio(() => createMcpServer(host));
 */
export function createMcpServer(host: ToolHost, options: McpServerOptions = {}): Server {
  const session = options.session ?? newSession(host.clock);
  const hostFor = options.hostFor ?? (() => host);
  const server = new TaskServer(
    { name: 'toolshed', version: TOOLSHED_VERSION },
    {
      capabilities: { tools: { listChanged: true }, logging: {} },
      // A call held for approval waits for a person: the deadline is the call's own (approval timeout), not the SDK's.
      inputRequired: { roundTimeoutMs: 24 * 60 * 60 * 1000, maxRounds: 64 },
    },
  );
  const listed = async (ctx: ServerContext) =>
    listedTools(
      await hostFor(ctx).definitions({ format: 'mcp', sessionId: sessionOf(session, ctx) ?? ownSession() }),
      server,
    );
  server.setRequestHandler('tools/list', async (_request, ctx) => ({ tools: (await listed(ctx)) as Tool[] }));
  if (session.tasks) {
    // A long-running tool may be called as a task: the call outlives the request, the client polls.
    installTasks(server, {
      scope: session.tasks,
      run: (params, task, ctx) =>
        runAsTask(hostFor(ctx), params, task, {
          server,
          meter: options.meter,
          sessionId: session.id ?? server.transport?.sessionId ?? ownSession(),
          owner: '',
        }),
      allows: async (name, ctx) =>
        (await listed(ctx)).some((tool) => tool.name === name && tool.execution !== undefined),
    });
  }
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const named = sessionOf(session, ctx);
    // A held call is found again by its token alone when the request names no session.
    const place: Parameters<typeof callTool>[3] = {
      server,
      meter: options.meter,
      sessionId: named ?? ownSession(),
      owner: named ?? '',
      caller: ownerKey(callerOf(ctx)),
      rounds: session.rounds,
    };
    if (options.shared) place.shared = options.shared;
    if (options.statelessClients)
      place.stateless = { capabilities: await options.statelessClients.capabilities(named) };
    return callTool(hostFor(ctx), request.params, ctx, place);
  });
  traceServer(server, options.network, () => session.id);

  const changes = options.changes ?? hostChanges(host);
  const onChange = (event: ToolListEvent) => {
    // A search that loaded tools changed only the searching session's list.
    if (event.kind === 'loaded' && event.sessionId !== (session.id ?? server.transport?.sessionId)) return;
    // The SDK sends it where the era allows: to a 2025-era client once it initialized, on a
    // 2026-era connection to its subscriptions/listen stream; before either, nowhere.
    server.sendToolListChanged().catch(() => {});
  };
  const unsubscribe = changes(onChange);
  const onClose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    onClose?.();
  };
  return server;
}

/**
 * The host session a request belongs to: the connection's, else the HTTP session's,
 * else the `Mcp-Session-Id` header a client sends to a stateless server; undefined
 * when it names none.
 */
function sessionOf(session: McpSession, ctx: ServerContext): string | undefined {
  if (session.id !== undefined) return session.id;
  if (ctx.sessionId !== undefined) return ctx.sessionId;
  return ctx.http?.req?.headers.get('mcp-session-id') || undefined;
}

/** A session of a request's own: a request that names no session never shares another's state. */
function ownSession(): string {
  return `request-${randomUUID()}`;
}

/**
 * Why a tool list may have changed: the exposure moved (every session's), or a tool_search loaded tools into one
 * session.
 */
type ToolListEvent = { kind: 'change' } | { kind: 'loaded'; sessionId: string | undefined };

/** Where a server hears that the tool list changed: subscribe a listener, get its unsubscribe. */
export type ChangeSource = (listener: (event: ToolListEvent) => void) => () => void;

/** Subscribes `emit` to the host's 'change' and 'loaded' events; returns the function that unsubscribes. */
function listenToHost(host: ToolHost, emit: (event: ToolListEvent) => void): () => void {
  const onChange = () => emit({ kind: 'change' });
  const onLoaded = (entry: HostEvents['loaded'][0]) => emit({ kind: 'loaded', sessionId: entry.sessionId });
  host.on('change', onChange);
  host.on('loaded', onLoaded);
  return () => {
    host.off('change', onChange);
    host.off('loaded', onLoaded);
  };
}

/** The host's own events, listened to once per server (fine for stdio's single connection). */
function hostChanges(host: ToolHost): ChangeSource {
  return (listener) => listenToHost(host, listener);
}

/**
 * One host listener fanned out to any number of servers, so many sessions
 * add no listeners to the host (and cannot trip its MaxListeners warning).
 * `dispose` removes the host listener.
 */
export function sharedChanges(host: ToolHost): { source: ChangeSource; dispose(): void; readonly listeners: number } {
  const listeners = new Set<(event: ToolListEvent) => void>();
  const fanOut = (event: ToolListEvent) => {
    for (const listener of listeners) listener(event);
  };
  const unlisten = listenToHost(host, fanOut);
  return {
    source: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    dispose: () => {
      unlisten();
      listeners.clear();
    },
    get listeners() {
      return listeners.size;
    },
  };
}
