/**
 * The console's JSON + SSE API below `api/` (docs/console.md#api), as a table of routes: each
 * names its path (or the prefix before an id), its method, and what answers it. A request works
 * on its caller's identity view under `serve.auth`, and an identity under a narrower access rule
 * sees and acts on only its own sessions, calls and held calls (owners.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { inspectorOf } from '../host/inspector.js';
import { clientOf, normalizeAddress } from '../http/access.js';
import { ownerKey } from '../http/caller.js';
import type { IdentityViews } from '../http/identity-views.js';
import type { SessionSnapshot } from '../mcp-server/public-types.js';
import type { HostMonitor } from './monitor.js';
import type { ConsoleOwners } from './owners.js';
import { overview, sessionsAnswer } from './overview.js';
import type { CallAnswer, Hello, SearchAnswer, Serving } from './api-types.js';
import { sendError, sendJson } from './replies.js';
import { decoded, readBody } from './request-checks.js';
import { toolDetail } from './tool-detail.js';
import type { Identity } from '../../boundary/identity.js';
import type { ToolHost } from '../host/host.js';
import { recordRefusal } from '../host/inspector.js';

/** Search results asked for by default, and at most. */
const SEARCH_LIMIT = { default: 10, max: 50 };

/** The refusal of a call into a session another identity holds (as serve's for MCP requests). */
const FOREIGN_SESSION =
  'this session belongs to another identity; call in your own (leave sessionId out for your console session)';

/** One API request, as a route's handler gets it. */
export interface ApiRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** the host it works on: its caller's view under serve.auth */
  target: ToolHost;
  caller: Identity | undefined;
  /** what follows a prefix route's prefix, percent-decoded */
  id: string;
}

/** One route of the API. */
interface ApiRoute {
  /** the path below `api/`, or the prefix before an id (ending in `/`) */
  path: string;
  method: 'GET' | 'POST';
  answer(api: ConsoleApi, request: ApiRequest): Promise<void> | void;
}

/** The API's routes, in the order they are matched. */
const ROUTES: readonly ApiRoute[] = [
  { path: 'overview', method: 'GET', answer: (api, r) => api.overview(r) },
  { path: 'calls', method: 'GET', answer: (api, r) => api.calls(r) },
  { path: 'approvals', method: 'GET', answer: (api, r) => api.approvals(r) },
  { path: 'sessions', method: 'GET', answer: (api, r) => api.sessions(r) },
  { path: 'events', method: 'GET', answer: (api, r) => api.events(r) },
  { path: 'tools/', method: 'GET', answer: (api, r) => api.tool(r) },
  { path: 'call', method: 'POST', answer: (api, r) => api.call(r) },
  { path: 'search', method: 'POST', answer: (api, r) => api.search(r) },
  { path: 'approvals/', method: 'POST', answer: (api, r) => api.answer(r) },
];

/** The route `path` (below `api/`) names and the raw id after a prefix route's prefix; undefined when none does. */
export function findRoute(path: string): { route: ApiRoute; id: string } | undefined {
  for (const route of ROUTES) {
    if (route.path.endsWith('/') ? path.startsWith(route.path) : path === route.path)
      return { route, id: path.slice(route.path.length) };
  }
  return undefined;
}

/** Whether a request's method is the route's (HEAD counts as GET). */
export function methodAllowed(method: string, wanted: 'GET' | 'POST'): boolean {
  return method === wanted || (wanted === 'GET' && method === 'HEAD');
}

/** Whether a GET asked for calls' payloads (`?payloads=1`). */
function payloadsAsked(req: IncomingMessage): boolean {
  return new URL(req.url ?? '/', 'http://x').searchParams.get('payloads') === '1';
}

/**
 * Answers 403 ACCESS_DENIED and writes the refusal's audit line, as serve does for MCP requests.
 */
export function deny(
  host: ToolHost,
  req: IncomingMessage,
  res: ServerResponse,
  message: string,
  caller?: Identity,
  sessionId?: string,
): void {
  const trustedProxies = new Set(host.config.serve.trustedProxies.map(normalizeAddress));
  recordRefusal(host, {
    status: 403,
    reason: message,
    client: clientOf(req, trustedProxies),
    ...(caller ? { identity: caller } : {}),
    ...(sessionId !== undefined ? { sessionId } : {}),
  });
  sendError(res, 'ACCESS_DENIED', message);
}

/** What the API is made from. */
interface ApiParts {
  host: ToolHost;
  serving: Serving;
  /** serve's MCP sessions, when the console is mounted on serve */
  sessions: (() => SessionSnapshot[]) | undefined;
  monitor: HostMonitor;
  owners: ConsoleOwners;
  views: IdentityViews;
}

/** The console's API over one host. */
export class ConsoleApi {
  constructor(private readonly parts: ApiParts) {}

  /** Answers the request for `path` (below `api/`). */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, caller: Identity | undefined): Promise<void> {
    const { host, views } = this.parts;
    const target = caller ? views.of(caller) : host;
    const method = req.method ?? 'GET';
    const found = findRoute(path);
    if (!found) return sendError(res, 'NOT_FOUND', `no API endpoint ${JSON.stringify(path)}`);
    const { route, id } = found;
    if (!methodAllowed(method, route.method))
      return sendError(res, 'METHOD_NOT_ALLOWED', `${method} is not allowed here: use ${route.method}`, {
        allow: route.method,
      });
    await route.answer(this, { req, res, target, caller, id: route.path.endsWith('/') ? decoded(id) : id });
  }

  async overview({ res, target, caller }: ApiRequest): Promise<void> {
    sendJson(res, 200, overview(await target.refresh(), this.parts.serving, caller));
  }

  calls({ req, res, caller }: ApiRequest): void {
    const { monitor, owners } = this.parts;
    sendJson(res, 200, { calls: owners.visible(caller, monitor.calls.list(payloadsAsked(req))) });
  }

  approvals({ res, caller }: ApiRequest): void {
    const { monitor, owners } = this.parts;
    sendJson(res, 200, { approvals: owners.visible(caller, monitor.approvals.list()) });
  }

  async sessions({ res, target, caller }: ApiRequest): Promise<void> {
    const { owners, sessions } = this.parts;
    const served = sessions?.();
    const answer = sessionsAnswer(await target.refresh(), served, inspectorOf(this.parts.host).breakers());
    if (owners.seesAll(caller)) return sendJson(res, 200, answer);
    sendJson(res, 200, {
      ...answer,
      sessions: await owners.ownSessions(answer.sessions, caller!, served !== undefined),
    });
  }

  events({ req, res, caller }: ApiRequest): void {
    const { monitor, owners } = this.parts;
    const payloads = payloadsAsked(req);
    const held = owners.visible(caller, monitor.approvals.list());
    const hello = {
      generation: monitor.generation,
      calls: owners.visible(caller, monitor.calls.list(payloads)),
      approvals: held,
    } satisfies Hello;
    monitor.streams.open(res, payloads, hello, owners.seesAll(caller) ? undefined : owners.ownEvents(caller!, held));
  }

  async tool({ res, target, id: name }: ApiRequest): Promise<void> {
    const detail = await toolDetail(target, await target.refresh(), inspectorOf(target).toolInfo(name), name);
    if (detail) return sendJson(res, 200, detail);
    sendError(res, 'NOT_FOUND', `no registered tool is named ${JSON.stringify(name)}`);
  }

  /** `POST api/call`: one call, in the caller's own session. */
  async call({ req, res, target, caller }: ApiRequest): Promise<void> {
    const body = await readBody(req);
    // Each identity's console calls have a session of their own: a shared default would share its state (ctx.session).
    const {
      tool,
      args = {},
      sessionId = caller
        ? `console-${createHash('sha256').update(ownerKey(caller)).digest('hex').slice(0, 16)}`
        : 'console',
    } = body;
    if (typeof tool !== 'string' || tool === '') return sendError(res, 'USAGE', 'tool must be a tool name');
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return sendError(res, 'USAGE', 'args must be a JSON object');
    if (typeof sessionId !== 'string') return sendError(res, 'USAGE', 'sessionId must be a string');
    if (caller && !(await this.mayCallIn(req, res, sessionId, caller))) return;
    const callId = `console-${randomUUID()}`;
    const started = performance.now();
    const outcome = await target.call(tool, args, { sessionId, callId });
    sendJson(res, 200, { outcome, durationMs: Math.round(performance.now() - started), callId } satisfies CallAnswer);
  }

  /** `POST api/search`. */
  async search({ req, res, target }: ApiRequest): Promise<void> {
    const { query, limit = SEARCH_LIMIT.default } = await readBody(req);
    if (typeof query !== 'string' || query.trim() === '')
      return sendError(res, 'USAGE', 'query must be a non-empty string');
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT.max)
      return sendError(res, 'USAGE', `limit must be an integer from 1 to ${SEARCH_LIMIT.max}`);
    sendJson(res, 200, (await inspectorOf(target).search(query, limit)) satisfies SearchAnswer);
  }

  /** `POST api/approvals/ID`: the console's answer to a held call. */
  async answer({ req, res, caller, id }: ApiRequest): Promise<void> {
    const { approved, reason } = await readBody(req);
    const { monitor, owners } = this.parts;
    if (typeof approved !== 'boolean') return sendError(res, 'USAGE', 'approved must be true or false');
    if (reason !== undefined && typeof reason !== 'string') return sendError(res, 'USAGE', 'reason must be a string');
    const held = monitor.approvals.list().find((approval) => approval.id === id);
    // Another identity's held call is not there for a narrower one, as it is not in its list.
    if (held && !owners.seesAll(caller) && !owners.owns(caller!, held))
      return sendError(res, 'NOT_FOUND', `no held call has the id ${JSON.stringify(id)}`);
    const result = monitor.approvals.answer(id, approved, reason);
    if (result === 'unknown') return sendError(res, 'NOT_FOUND', `no held call has the id ${JSON.stringify(id)}`);
    if (result === 'conflict')
      return sendError(res, 'CONFLICT', 'this call was already settled (answered, timed out or cancelled)');
    sendJson(res, 200, { settled: true });
  }

  /** Whether `caller` may call in `sessionId`; when not, answered here (503 when the store cannot tell, else 403). */
  private async mayCallIn(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string,
    caller: Identity,
  ): Promise<boolean> {
    const own = await this.parts.owners.mayUse(sessionId, caller);
    if (own === undefined) {
      const message = 'cannot tell whose session this is: the state store did not answer; retry later';
      sendJson(res, 503, { error: { code: 'STATE_UNAVAILABLE', message } }, { 'retry-after': '5' });
      return false;
    }
    if (!own) deny(this.parts.host, req, res, FOREIGN_SESSION, caller, sessionId);
    return own;
  }
}
