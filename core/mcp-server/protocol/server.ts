/**
 * The MCP server of one client connection (stdio, a 2025-era HTTP session)
 * or one request (the 2026-07-28 revision and stateless HTTP), built on the
 * SDK's low-level `Server` because the tool list is dynamic: `tools/list` is
 * the host's definitions in the mcp format at the moment of the request.
 * The SDK's serving entries (`serveStdio`, `createMcpHandler`) pick the
 * protocol era per connection or request and build an instance from here.
 * This is serve's own way in, with every option its transports need;
 * `createMcpServer` (create-server.ts) is the embedder's.
 */
import type { ClientCapabilities, Server, ServerContext, Tool } from '@modelcontextprotocol/server';
import { callTool, runAsTask, type CallMeter, type FleetRounds } from './call-tool.js';
import { installTasks, listedTools, TaskServer } from './tasks.js';
import { callerOf, ownerKey } from '../../http/caller.js';
import { hostChanges, type ChangeSource, type ToolListEvent } from './changes.js';
import { newSession, ownSession, sessionOf, type McpSession } from './session.js';
import { traceServer, type NetworkTransport } from './tracing.js';
import { TOOLSHED_VERSION } from '../../../boundary/version.js';
import type { ToolHost } from '../../host/host.js';

/** What a 2025-era client served without a session declared at its `initialize` (sessions/stateless-clients.ts). */
export interface ClientDeclarations {
  /** the capabilities the session's client declared; undefined when unknown */
  capabilities(sessionId: string | undefined): Promise<ClientCapabilities | undefined>;
}

/** How serve's transports make a server. */
export interface ServerOptions {
  /** where list changes come from (default: the host's own events) */
  changes?: ChangeSource;
  /** the connection's session (default: a new one) */
  session?: McpSession;
  /** what carries the connection, for its traces */
  network?: NetworkTransport;
  /** the held calls of a fleet's other replicas, for a server made per request (http/http.ts) */
  shared?: FleetRounds;
  /** for a 2025-era client served per request (stateless HTTP): what its initialize declared */
  statelessClients?: ClientDeclarations;
  /** told of every tool call's outcome (serve's /metrics) */
  meter?: CallMeter | undefined;
  /** the host a request is served by (with `serve.auth`, its caller's identity view); default the server's own */
  hostFor?: (ctx: ServerContext) => ToolHost;
}

/** An SDK `Server` serving `host`'s tools in `options.session` (default: a new one). */
export function buildMcpServer(host: ToolHost, options: ServerOptions = {}): Server {
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
  if (session.tasks) installSessionTasks(server, session, options, hostFor, listed);
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
  followChanges(server, session, options.changes ?? hostChanges(host));
  return server;
}

/** A long-running tool may be called as a task: the call outlives the request, the client polls. */
function installSessionTasks(
  server: TaskServer,
  session: McpSession,
  options: ServerOptions,
  hostFor: (ctx: ServerContext) => ToolHost,
  listed: (ctx: ServerContext) => Promise<ReturnType<typeof listedTools>>,
): void {
  installTasks(server, {
    scope: session.tasks!,
    run: (params, task, ctx) =>
      runAsTask(hostFor(ctx), params, task, {
        server,
        meter: options.meter,
        sessionId: session.id ?? server.transport?.sessionId ?? ownSession(),
        owner: '',
      }),
    allows: async (name, ctx) => (await listed(ctx)).some((tool) => tool.name === name && tool.execution !== undefined),
  });
}

/** Sends list_changed when `changes` says this session's list moved; stops listening when the server closes. */
function followChanges(server: Server, session: McpSession, changes: ChangeSource): void {
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
}
