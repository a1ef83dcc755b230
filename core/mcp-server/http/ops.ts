/**
 * The ops endpoints of `toolshed serve --http`, beside `/mcp` and outside its
 * bearer auth (probes and scrapers carry no token): `/healthz` answers 200
 * while the process serves; `/readyz` 200 once the host is open and its state
 * store answers a ping, else 503 with the reason; `/metrics` the Prometheus
 * text of metrics.ts. On by default only on loopback: elsewhere `serve --ops`
 * or `serve.ops: true` turns them on (docs/operations.md).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveMetrics, type MetricSources } from './metrics.js';
import { whenOpen } from '../../host/opening-host.js';
import type { CallMeter } from '../protocol/call-tool.js';
import type { ToolHost } from '../../host/host.js';

/** How long `/readyz` waits for the state store's answer before it calls the store unreachable. */
const PING_TIMEOUT_MS = 2_000;

/** The ops endpoints of one HTTP server. */
export interface OpsEndpoints {
  /** serves the request when it is for an ops path; whether it was */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** what tools/call reports each call to */
  meter: CallMeter;
}

/** The ops endpoints over `host` (open, or still opening) and the server's sessions. */
export function opsEndpoints(host: ToolHost, sessions: Omit<MetricSources, 'host'>): OpsEndpoints {
  let open: ToolHost | undefined;
  let failure: string | undefined;
  whenOpen(host).then(
    (ready) => {
      open = ready;
    },
    (error: unknown) => {
      failure = error instanceof Error ? error.message : String(error);
    },
  );
  const metrics = serveMetrics({ ...sessions, host: () => open });
  const routes: Record<string, (res: ServerResponse) => Promise<void> | void> = {
    '/healthz': (res) => text(res, 200, 'ok\n'),
    '/readyz': async (res) => {
      const why =
        failure !== undefined
          ? `the host failed to open: ${failure}`
          : open
            ? await storeDown(open)
            : 'the host is still opening (loading plugins)';
      text(res, why === undefined ? 200 : 503, why === undefined ? 'ready\n' : `not ready: ${why}\n`);
    },
    '/metrics': async (res) => {
      const body = await metrics.scrape();
      res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body);
    },
  };
  return {
    meter: metrics.meter,
    handle(req, res) {
      const route = routes[new URL(req.url ?? '/', 'http://localhost').pathname];
      if (!route) return false;
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        text(res, 405, 'method not allowed: use GET\n', { allow: 'GET, HEAD' });
        return true;
      }
      Promise.resolve(route(res)).catch((error: unknown) => {
        if (!res.headersSent) text(res, 500, `error: ${error instanceof Error ? error.message : String(error)}\n`);
      });
      return true;
    },
  };
}

/** Why the host's state store is not usable, or undefined when it answers in time. */
async function storeDown(host: ToolHost): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
  });
  try {
    await Promise.race([host.state.ping(), late]);
    return undefined;
  } catch (error) {
    return (
      `the state store (${host.state.kind}) is unreachable: ` +
      `${error instanceof Error ? error.message : String(error)}`
    );
  } finally {
    clearTimeout(timer);
  }
}

function text(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res
    .writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers })
    .end(body);
}
