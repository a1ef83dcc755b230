/**
 * The console's request handler: the page's files at BASE and the JSON + SSE
 * API at BASE/api/ (docs/console.md#api). A listener (`toolshed ui`'s own,
 * or `serve --http`'s at /ui/) checks the Host header and authenticates
 * first; here every request's Origin must be the listener's own (or one the
 * operator allowed), a state-changing request must be a JSON POST carrying
 * `X-Toolshed-Console: 1`, and with `serve.auth` the caller's token must hold
 * the `toolshed:console` scope, the console then working as that identity's
 * view. The console watches the root host (a reloading one too): every call
 * that ends, calls held for approval (it is an approver racing each call's
 * own), changes, logs and warnings go to the event streams.
 */
import { randomUUID } from 'node:crypto';
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
import { EventStreams } from './event-stream.js';
import { overview, sessionsAnswer, type Serving } from './overview.js';
import type { SessionSnapshot } from '../mcp-server/http-sessions.js';
import { toolDetail } from './tool-detail.js';
import { sendError, sendJson, sendRefusal } from './replies.js';
import { sendStatic } from './static-files.js';
import { ToolshedError } from '../../boundary/errors.js';

/** The scope a `serve.auth` token needs to use the console. */
export const CONSOLE_SCOPE = 'toolshed:console';

/** The header a state-changing request must carry: a cross-site page cannot send it without a preflight nobody answers. */
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
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BadRequest('the body must be a JSON object');
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
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) return 'a state-changing request needs Content-Type: application/json';
  if (req.headers[CONSOLE_HEADER] !== '1') return 'a state-changing request needs the header X-Toolshed-Console: 1';
  return undefined;
}

/** The console over `options.host`. */
export function consoleHandler(options: ConsoleOptions): Console {
  const { host } = options;
  const inspector = inspectorOf(host);
  const allowed = new Set(options.allowedOrigins ?? []);
  const streams = new EventStreams();
  const calls = new CallLog();
  const approvals = new PendingApprovals({
    held: (approval) => streams.send('approval', approval),
    settled: (settled) => streams.send('settled', settled),
  });
  const views = new IdentityViews(host);
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
    streams.send('change', { generation, at: new Date().toISOString(), changes });
  };
  const onLog = (entry: HostEvents['log'][0]) => streams.send('log', { at: new Date().toISOString(), ...logFields(entry) });
  const onWarning = (message: string) => streams.send('warning', { at: new Date().toISOString(), message });
  const onDefinition = (change: HostEvents['definition-changed'][0]) => streams.send('change', { generation, at: new Date().toISOString(), changes: [definitionChange(change)] });
  host.on('change', onChange);
  host.on('log', onLog);
  host.on('warning', onWarning);
  host.on('definition-changed', onDefinition);

  /** The host the request works on: its caller's view under serve.auth. */
  const hostFor = (caller: Identity | undefined) => (caller ? views.of(caller) : host);

  async function api(req: IncomingMessage, res: ServerResponse, route: string, caller: Identity | undefined): Promise<void> {
    const target = hostFor(caller);
    const method = req.method ?? 'GET';
    const only = (wanted: 'GET' | 'POST') => {
      if (method === wanted || (wanted === 'GET' && method === 'HEAD')) return true;
      sendError(res, 'METHOD_NOT_ALLOWED', `${method} is not allowed here: use ${wanted}`, { allow: wanted });
      return false;
    };
    if (route === 'overview') return void (only('GET') && sendJson(res, 200, overview(await target.refresh(), options.serving, caller)));
    if (route === 'calls') return void (only('GET') && sendJson(res, 200, { calls: calls.list(new URL(req.url ?? '/', 'http://x').searchParams.get('payloads') === '1') }));
    if (route === 'approvals') return void (only('GET') && sendJson(res, 200, { approvals: approvals.list() }));
    if (route === 'sessions') return void (only('GET') && sendJson(res, 200, sessionsAnswer(await target.refresh(), options.sessions?.(), inspector.breakers())));
    if (route === 'events') {
      if (!only('GET')) return;
      const payloads = new URL(req.url ?? '/', 'http://x').searchParams.get('payloads') === '1';
      return streams.open(res, payloads, { generation, calls: calls.list(payloads), approvals: approvals.list() });
    }
    if (route.startsWith('tools/')) {
      if (!only('GET')) return;
      const name = decoded(route.slice('tools/'.length));
      const detail = await toolDetail(target, await target.refresh(), inspectorOf(target).toolInfo(name), name);
      return detail ? sendJson(res, 200, detail) : sendError(res, 'NOT_FOUND', `no registered tool is named ${JSON.stringify(name)}`);
    }
    if (route === 'call') return only('POST') ? runCall(res, target, await readBody(req)) : undefined;
    if (route === 'search') return only('POST') ? search(res, target, await readBody(req)) : undefined;
    if (route.startsWith('approvals/')) return only('POST') ? answer(res, decoded(route.slice('approvals/'.length)), await readBody(req)) : undefined;
    sendError(res, 'NOT_FOUND', `no API endpoint ${JSON.stringify(route)}`);
  }

  async function runCall(res: ServerResponse, target: ToolHost, body: Record<string, unknown>): Promise<void> {
    const { tool, args = {}, sessionId = 'console' } = body;
    if (typeof tool !== 'string' || tool === '') return sendError(res, 'USAGE', 'tool must be a tool name');
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return sendError(res, 'USAGE', 'args must be a JSON object');
    if (typeof sessionId !== 'string') return sendError(res, 'USAGE', 'sessionId must be a string');
    const callId = `console-${randomUUID()}`;
    const started = performance.now();
    const outcome = await target.call(tool, args, { sessionId, callId });
    sendJson(res, 200, { outcome, durationMs: Math.round(performance.now() - started), callId });
  }

  async function search(res: ServerResponse, target: ToolHost, body: Record<string, unknown>): Promise<void> {
    const { query, limit = SEARCH_LIMIT.default } = body;
    if (typeof query !== 'string' || query.trim() === '') return sendError(res, 'USAGE', 'query must be a non-empty string');
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT.max) return sendError(res, 'USAGE', `limit must be an integer from 1 to ${SEARCH_LIMIT.max}`);
    sendJson(res, 200, await inspectorOf(target).search(query, limit));
  }

  function answer(res: ServerResponse, id: string, body: Record<string, unknown>): void {
    const { approved, reason } = body;
    if (typeof approved !== 'boolean') return sendError(res, 'USAGE', 'approved must be true or false');
    if (reason !== undefined && typeof reason !== 'string') return sendError(res, 'USAGE', 'reason must be a string');
    const result = approvals.answer(id, approved, reason);
    if (result === 'unknown') return sendError(res, 'NOT_FOUND', `no held call has the id ${JSON.stringify(id)}`);
    if (result === 'conflict') return sendError(res, 'CONFLICT', 'this call was already settled (answered, timed out or cancelled)');
    sendJson(res, 200, { settled: true });
  }

  return {
    isPublic: (path) => !path.startsWith('api/') && path !== 'api',
    refuse: sendRefusal,
    async handle(req, res, { path, caller, origins }) {
      const refused = refusal(req, origins, allowed);
      if (refused) return sendError(res, 'ACCESS_DENIED', refused);
      if (!path.startsWith('api/')) {
        const method = req.method ?? 'GET';
        if (method !== 'GET' && method !== 'HEAD') return sendError(res, 'METHOD_NOT_ALLOWED', `${method} is not allowed here: use GET`, { allow: 'GET' });
        if (!(await sendStatic(res, path, method === 'HEAD'))) {
          res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end('Not found\n');
        }
        return;
      }
      if (options.oauth && !caller?.scopes.includes(CONSOLE_SCOPE)) return sendError(res, 'ACCESS_DENIED', `this token lacks the scope ${CONSOLE_SCOPE}, which the console needs`);
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
  return { plugin: entry.plugin, ...(entry.tool !== undefined ? { tool: entry.tool } : {}), level: entry.level, message: entry.message };
}
