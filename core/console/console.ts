/**
 * The console's request handler: the page's files at BASE and the JSON + SSE
 * API at BASE/api/ (docs/console.md#api). A listener (`toolshed ui`'s own,
 * or `serve --http`'s at /ui/) checks the Host header and authenticates
 * first; here every request's Origin must be the listener's own (or one the
 * operator allowed), a state-changing request must be a JSON POST carrying
 * `X-Toolshed-Console: 1`, and with `serve.auth` the caller's token must hold
 * the `toolshed:console` scope, the console then working as that identity's
 * view, held to the owner checks of MCP requests: it calls only in its own
 * sessions, and under an access rule that narrows the host it sees only its
 * own sessions, calls and held calls. Its refusals are audited as serve's are
 * (`host.recordRefusal`). The console watches the root host (a reloading one too): every call
 * that ends, calls held for approval (it is an approver racing each call's
 * own), changes, logs and warnings go to the event streams.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identity } from '../../boundary/identity.js';
import type { ToolHost } from '../host/host.js';
import type { HostReport } from '../explain/public-types.js';
import type { HostEvents } from '../host/events.js';
import { IdentityViews } from '../mcp-server/identity-views.js';
import { inspectorOf } from '../host/inspector.js';
import { CallLog, withPayloads } from './calls.js';
import { PendingApprovals } from './approvals.js';
import { definitionChange, diffReports } from './changes.js';
import { EventStreams, type EventFilter } from './event-stream.js';
import { overview, sessionsAnswer } from './overview.js';
import type { SessionSnapshot } from '../mcp-server/http-sessions.js';
import { toolDetail } from './tool-detail.js';
import { sendError, sendJson, sendRefusal } from './replies.js';
import { sendStatic } from './static-files.js';
import { ToolshedError } from '../../boundary/errors.js';
import { matchRule } from '../access/rules.js';
import { ownerKey } from '../mcp-server/caller.js';
import { clientOf, normalizeAddress } from '../mcp-server/http-access.js';
import { StatelessClients } from '../mcp-server/stateless-clients.js';
import type { CallAnswer, ChangeEvent, Hello, LogEvent, PendingApproval, SearchAnswer } from './api-types.js';
import type { Serving, ShownIdentity, WarningEvent } from './api-types.js';

/** The scope a `serve.auth` token needs to use the console. */
export const CONSOLE_SCOPE = 'toolshed:console';

/**
 * The header a state-changing request must carry: a cross-site page cannot send it without a preflight nobody answers.
 */
export const CONSOLE_HEADER = 'x-toolshed-console';

/** Request bodies above this are refused. */
const MAX_BODY_BYTES = 1024 * 1024;

/** Search results asked for by default, and at most. */
const SEARCH_LIMIT = { default: 10, max: 50 };

/** What the console is made from. */
export interface ConsoleOptions {
  /** the root host (a reloading host follows its reloads) */
  host: ToolHost;
  serving: Serving;
  /** serve's MCP sessions, when the console is mounted on serve */
  sessions?: () => SessionSnapshot[];
  /** origins allowed besides the listener's own (`--allow-origin`) */
  allowedOrigins?: readonly string[];
  /** whether the listener checks `serve.auth` tokens (then the API needs CONSOLE_SCOPE) */
  oauth?: boolean;
}

/** One request, as its listener passed it on. */
export interface ConsoleRequest {
  /** the path below BASE, without its leading slash ('' for BASE itself) */
  path: string;
  /** the verified caller (serve.auth) */
  caller?: Identity;
  /** the listener's own origins (`http://127.0.0.1:PORT`, …) */
  origins: ReadonlySet<string>;
}

/** A running console. */
export interface Console {
  /** whether `path` (below BASE) is a page file, served without a token */
  isPublic(path: string): boolean;
  /** answers a refusal of its listener's (401, 403…) in the API's error shape */
  refuse(res: ServerResponse, status: number, message: string, headers?: Record<string, string>): void;
  /** answers one request below BASE */
  handle(req: IncomingMessage, res: ServerResponse, request: ConsoleRequest): Promise<void>;
  /** ends every event stream, refuses every held call and stops watching the host */
  close(): Promise<void>;
}

class BadRequest extends Error {}

/** The refusal of a call into a session another identity holds (as serve's for MCP requests). */
const FOREIGN_SESSION =
  'this session belongs to another identity; call in your own (leave sessionId out for your console session)';

/** The JSON object body of a POST. */
async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BadRequest(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new BadRequest(`the body is not JSON: ${(error as Error).message}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BadRequest('the body must be a JSON object');
  return body as Record<string, unknown>;
}

/** A path segment, percent-decoded; a malformed one is a bad request. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequest(`malformed path segment ${JSON.stringify(segment.slice(0, 100))}`);
  }
}

/** Why a request may not go on, or undefined: a foreign Origin, or a state change without the console's marks. */
function refusal(req: IncomingMessage, origins: ReadonlySet<string>, allowed: ReadonlySet<string>): string | undefined {
  const origin = req.headers.origin;
  // Same-origin: the page was loaded from the Host this request names (the listener checked that Host).
  const own = [`http://${req.headers.host}`, `https://${req.headers.host}`];
  if (origin !== undefined && !own.includes(origin) && !origins.has(origin) && !allowed.has(origin))
    return `Origin ${JSON.stringify(origin.slice(0, 100))} is not this console's (no cross-site requests; add an origin with --allow-origin)`;
  if (req.method !== 'POST') return undefined;
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
    return 'a state-changing request needs Content-Type: application/json';
  if (req.headers[CONSOLE_HEADER] !== '1') return 'a state-changing request needs the header X-Toolshed-Console: 1';
  return undefined;
}

/** The console over `options.host`. */
export function consoleHandler(options: ConsoleOptions): Console {
  const { host } = options;
  const inspector = inspectorOf(host);
  const allowed = new Set(options.allowedOrigins ?? []);
  const streams = new EventStreams(host.clock);
  const calls = new CallLog();
  const approvals = new PendingApprovals({
    held: (approval) => streams.send('approval', approval),
    settled: (settled) => streams.send('settled', settled),
  });
  const views = new IdentityViews(host);
  // Who holds which session: the same records (`mcp:owner:ID` in the state store) a stateless serve keeps.
  const owners = new StatelessClients(host.state, host.config.state.sessionTtlMs, () => {});

  /** Answers 403 ACCESS_DENIED and writes the refusal's audit line, as serve does for MCP requests. */
  function deny(
    req: IncomingMessage,
    res: ServerResponse,
    message: string,
    caller?: Identity,
    sessionId?: string,
  ): void {
    const trustedProxies = new Set(host.config.serve.trustedProxies.map(normalizeAddress));
    host.recordRefusal({
      status: 403,
      reason: message,
      client: clientOf(req, trustedProxies),
      ...(caller ? { identity: caller } : {}),
      ...(sessionId !== undefined ? { sessionId } : {}),
    });
    sendError(res, 'ACCESS_DENIED', message);
  }

  /**
   * Whether `caller` sees every caller's sessions, calls and held calls: no identity (one operator), no access rules,
   * or a rule that narrows nothing.
   */
  const seesAll = (caller: Identity | undefined): boolean => {
    if (!caller || host.config.access.length === 0) return true;
    const rule = matchRule(host.config.access, caller)?.rule;
    return rule !== undefined && rule.enable === undefined && rule.disable === undefined && rule.defer === undefined;
  };

  /**
   * Whether `caller` may call in session `id`: serve's own session of that id is its, or the id is its own (or no one's
   * yet, and then its); undefined when the store cannot tell.
   */
  async function mayUse(id: string, caller: Identity): Promise<boolean | undefined> {
    const served = options.sessions?.().find((s) => s.id === id);
    if (served) return ownerKey(served.identity) === ownerKey(caller);
    try {
      return await owners.claim(id, ownerKey(caller));
    } catch {
      return undefined;
    }
  }

  /** Of `sessions`, those `caller` holds (a session whose owner the store cannot name is left out). */
  async function ownSessions<T extends { id: string; identity?: ShownIdentity }>(
    sessions: T[],
    caller: Identity,
    served: boolean,
  ): Promise<T[]> {
    const mine = ownerKey(caller);
    if (served) return sessions.filter((s) => ownerKey(s.identity) === mine);
    const held = await Promise.all(sessions.map((s) => owners.owner(s.id).catch(() => undefined)));
    return sessions.filter((_, index) => held[index] === mine);
  }

  /** Whether an entry (a call, a held call) is `caller`'s own. */
  const owns = (caller: Identity, entry: { identity?: ShownIdentity }) => ownerKey(entry.identity) === ownerKey(caller);
  let generation = 0;
  let report: HostReport | undefined = safeExplain(host);

  const onCall = (call: HostEvents['call'][0]) => {
    const entry = calls.add(call);
    streams.send('call', (payloads: boolean) => withPayloads(entry, payloads));
  };
  host.on('call', onCall);
  const stopApprover = inspector.addApprover(approvals.approver);
  const onChange = (next: number) => {
    generation = next;
    const after = safeExplain(host);
    const changes = report && after ? diffReports(report, after) : [];
    if (after) report = after;
    streams.send('change', { generation, at: new Date().toISOString(), changes } satisfies ChangeEvent);
  };
  const onLog = (entry: HostEvents['log'][0]) =>
    streams.send('log', { at: new Date().toISOString(), ...logFields(entry) } satisfies LogEvent);
  const onWarning = (message: string) =>
    streams.send('warning', { at: new Date().toISOString(), message } satisfies WarningEvent);
  const onDefinition = (change: HostEvents['definition-changed'][0]) =>
    streams.send('change', {
      generation,
      at: new Date().toISOString(),
      changes: [definitionChange(change)],
    } satisfies ChangeEvent);
  host.on('change', onChange);
  host.on('log', onLog);
  host.on('warning', onWarning);
  host.on('definition-changed', onDefinition);

  /** The host the request works on: its caller's view under serve.auth. */
  const hostFor = (caller: Identity | undefined) => (caller ? views.of(caller) : host);

  async function api(
    req: IncomingMessage,
    res: ServerResponse,
    route: string,
    caller: Identity | undefined,
  ): Promise<void> {
    const target = hostFor(caller);
    const method = req.method ?? 'GET';
    const only = (wanted: 'GET' | 'POST') => {
      if (method === wanted || (wanted === 'GET' && method === 'HEAD')) return true;
      sendError(res, 'METHOD_NOT_ALLOWED', `${method} is not allowed here: use ${wanted}`, { allow: wanted });
      return false;
    };
    if (route === 'overview')
      return void (only('GET') && sendJson(res, 200, overview(await target.refresh(), options.serving, caller)));
    const all = seesAll(caller);
    // An identity under a narrower rule sees only its own calls and held calls.
    const mine = <T extends { identity?: ShownIdentity }>(list: T[]): T[] =>
      all ? list : list.filter((entry) => owns(caller!, entry));
    if (route === 'calls')
      return void (
        only('GET') &&
        sendJson(res, 200, {
          calls: mine(calls.list(new URL(req.url ?? '/', 'http://x').searchParams.get('payloads') === '1')),
        })
      );
    if (route === 'approvals') return void (only('GET') && sendJson(res, 200, { approvals: mine(approvals.list()) }));
    if (route === 'sessions') {
      if (!only('GET')) return;
      const served = options.sessions?.();
      const answer = sessionsAnswer(await target.refresh(), served, inspector.breakers());
      return sendJson(
        res,
        200,
        all ? answer : { ...answer, sessions: await ownSessions(answer.sessions, caller!, served !== undefined) },
      );
    }
    if (route === 'events') {
      if (!only('GET')) return;
      const payloads = new URL(req.url ?? '/', 'http://x').searchParams.get('payloads') === '1';
      const held = mine(approvals.list());
      return streams.open(
        res,
        payloads,
        { generation, calls: mine(calls.list(payloads)), approvals: held } satisfies Hello,
        all ? undefined : ownEvents(caller!, held),
      );
    }
    if (route.startsWith('tools/')) {
      if (!only('GET')) return;
      const name = decoded(route.slice('tools/'.length));
      const detail = await toolDetail(target, await target.refresh(), inspectorOf(target).toolInfo(name), name);
      return detail
        ? sendJson(res, 200, detail)
        : sendError(res, 'NOT_FOUND', `no registered tool is named ${JSON.stringify(name)}`);
    }
    if (route === 'call') return only('POST') ? runCall(req, res, target, await readBody(req), caller) : undefined;
    if (route === 'search') return only('POST') ? search(res, target, await readBody(req)) : undefined;
    if (route.startsWith('approvals/'))
      return only('POST')
        ? answer(req, res, decoded(route.slice('approvals/'.length)), await readBody(req), caller)
        : undefined;
    sendError(res, 'NOT_FOUND', `no API endpoint ${JSON.stringify(route)}`);
  }

  /**
   * The events an identity under a narrower rule sees: its own calls and held calls (and the settling of those), and
   * what is host-wide.
   */
  function ownEvents(caller: Identity, held: PendingApproval[]): EventFilter {
    const shown = new Set(held.map((approval) => approval.id));
    return (event, data) => {
      const entry = data as { id?: string; identity?: ShownIdentity };
      if (event === 'call') return owns(caller, entry);
      if (event === 'approval') return owns(caller, entry) && Boolean(shown.add(entry.id!));
      if (event === 'settled') return shown.delete(entry.id!);
      return true;
    };
  }

  async function runCall(
    req: IncomingMessage,
    res: ServerResponse,
    target: ToolHost,
    body: Record<string, unknown>,
    caller: Identity | undefined,
  ): Promise<void> {
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
    if (caller) {
      const own = await mayUse(sessionId, caller);
      if (own === undefined)
        return sendJson(
          res,
          503,
          {
            error: {
              code: 'STATE_UNAVAILABLE',
              message: 'cannot tell whose session this is: the state store did not answer; retry later',
            },
          },
          { 'retry-after': '5' },
        );
      if (!own) return deny(req, res, FOREIGN_SESSION, caller, sessionId);
    }
    const callId = `console-${randomUUID()}`;
    const started = performance.now();
    const outcome = await target.call(tool, args, { sessionId, callId });
    sendJson(res, 200, { outcome, durationMs: Math.round(performance.now() - started), callId } satisfies CallAnswer);
  }

  async function search(res: ServerResponse, target: ToolHost, body: Record<string, unknown>): Promise<void> {
    const { query, limit = SEARCH_LIMIT.default } = body;
    if (typeof query !== 'string' || query.trim() === '')
      return sendError(res, 'USAGE', 'query must be a non-empty string');
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT.max)
      return sendError(res, 'USAGE', `limit must be an integer from 1 to ${SEARCH_LIMIT.max}`);
    sendJson(res, 200, (await inspectorOf(target).search(query, limit)) satisfies SearchAnswer);
  }

  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    id: string,
    body: Record<string, unknown>,
    caller: Identity | undefined,
  ): void {
    const { approved, reason } = body;
    if (typeof approved !== 'boolean') return sendError(res, 'USAGE', 'approved must be true or false');
    if (reason !== undefined && typeof reason !== 'string') return sendError(res, 'USAGE', 'reason must be a string');
    const held = approvals.list().find((approval) => approval.id === id);
    // Another identity's held call is not there for a narrower one, as it is not in its list.
    if (held && !seesAll(caller) && !owns(caller!, held))
      return sendError(res, 'NOT_FOUND', `no held call has the id ${JSON.stringify(id)}`);
    const result = approvals.answer(id, approved, reason);
    if (result === 'unknown') return sendError(res, 'NOT_FOUND', `no held call has the id ${JSON.stringify(id)}`);
    if (result === 'conflict')
      return sendError(res, 'CONFLICT', 'this call was already settled (answered, timed out or cancelled)');
    sendJson(res, 200, { settled: true });
  }

  return {
    isPublic: (path) => !path.startsWith('api/') && path !== 'api',
    refuse: sendRefusal,
    async handle(req, res, { path, caller, origins }) {
      const refused = refusal(req, origins, allowed);
      if (refused) return deny(req, res, refused, caller);
      if (!path.startsWith('api/')) {
        const method = req.method ?? 'GET';
        if (method !== 'GET' && method !== 'HEAD')
          return sendError(res, 'METHOD_NOT_ALLOWED', `${method} is not allowed here: use GET`, { allow: 'GET' });
        if (!(await sendStatic(res, path, method === 'HEAD'))) {
          res
            .writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
            .end('Not found\n');
        }
        return;
      }
      if (options.oauth && !caller?.scopes.includes(CONSOLE_SCOPE))
        return deny(req, res, `this token lacks the scope ${CONSOLE_SCOPE}, which the console needs`, caller);
      try {
        await api(req, res, path.slice('api/'.length), caller);
      } catch (error) {
        if (error instanceof BadRequest) return sendError(res, 'USAGE', error.message);
        if (error instanceof ToolshedError) return sendError(res, error.code, error.message);
        throw error;
      }
    },
    async close() {
      host.off('call', onCall);
      stopApprover();
      host.off('change', onChange);
      host.off('log', onLog);
      host.off('warning', onWarning);
      host.off('definition-changed', onDefinition);
      approvals.close();
      streams.close();
      await views.close();
    },
  };
}

/** The host's report, or undefined while it cannot give one (an opening host). */
function safeExplain(host: ToolHost): HostReport | undefined {
  try {
    return host.explain();
  } catch {
    return undefined;
  }
}

/** A log entry's fields as the event sends them. */
function logFields(entry: HostEvents['log'][0]) {
  return {
    plugin: entry.plugin,
    ...(entry.tool !== undefined ? { tool: entry.tool } : {}),
    level: entry.level,
    message: entry.message,
  };
}
