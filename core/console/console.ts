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
 * (`recordRefusal`, core/host/inspector.ts). The console watches the root host (a reloading one too): every call
 * that ends, calls held for approval (it is an approver racing each call's
 * own), changes, logs and warnings go to the event streams.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identity } from '../../boundary/identity.js';
import type { ToolHost } from '../host/host.js';
import { IdentityViews } from '../http/identity-views.js';
import type { SessionSnapshot } from '../mcp-server/public-types.js';
import { ConsoleApi, deny } from './api.js';
import { HostMonitor } from './monitor.js';
import { ConsoleOwners } from './owners.js';
import type { Serving } from './api-types.js';
import { sendError, sendRefusal } from './replies.js';
import { BadRequest, refusal } from './request-checks.js';
import { sendStatic } from './static-files.js';
import { ToolshedError } from '../../boundary/errors.js';

/** The scope a `serve.auth` token needs to use the console. */
export const CONSOLE_SCOPE = 'toolshed:console';

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

/** Answers a request for the page's files: GET or HEAD only, 404 for a file that is not there. */
async function sendPage(res: ServerResponse, method: string, path: string): Promise<void> {
  if (method !== 'GET' && method !== 'HEAD')
    return sendError(res, 'METHOD_NOT_ALLOWED', `${method} is not allowed here: use GET`, { allow: 'GET' });
  if (await sendStatic(res, path, method === 'HEAD')) return;
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end('Not found\n');
}

/** The console over `options.host`. */
export function consoleHandler(options: ConsoleOptions): Console {
  const { host } = options;
  const allowed = new Set(options.allowedOrigins ?? []);
  const monitor = new HostMonitor(host);
  const views = new IdentityViews(host);
  const owners = new ConsoleOwners(host, options.sessions);
  const api = new ConsoleApi({ host, serving: options.serving, sessions: options.sessions, monitor, owners, views });
  return {
    isPublic: (path) => !path.startsWith('api/') && path !== 'api',
    refuse: sendRefusal,
    async handle(req, res, { path, caller, origins }) {
      const refused = refusal(req, origins, allowed);
      if (refused) return deny(host, req, res, refused, caller);
      if (!path.startsWith('api/')) return sendPage(res, req.method ?? 'GET', path);
      if (options.oauth && !caller?.scopes.includes(CONSOLE_SCOPE))
        return deny(host, req, res, `this token lacks the scope ${CONSOLE_SCOPE}, which the console needs`, caller);
      try {
        await api.handle(req, res, path.slice('api/'.length), caller);
      } catch (error) {
        if (error instanceof BadRequest) return sendError(res, 'USAGE', error.message);
        if (error instanceof ToolshedError) return sendError(res, error.code, error.message);
        throw error;
      }
    },
    async close() {
      monitor.close();
      await views.close();
    },
  };
}
