/**
 * The loopback end of `toolshed auth`'s browser login (RFC 8252): an HTTP listener on 127.0.0.1
 * that takes the authorization server's redirect at `/callback`, checks its `state`, answers the
 * browser with a short page, and hands back the redirect's parameters. Anything else it is sent
 * gets a 404; a redirect with the wrong `state` (another tab, a forged link) is refused and the
 * login goes on waiting.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listener waiting for one redirect. */
export interface RedirectListener {
  /** the port it listens on (127.0.0.1) */
  port: number;
  /** the redirect's query parameters, once one with `state` arrives; rejects after `timeoutMs` */
  wait(state: string, timeoutMs: number): Promise<URLSearchParams>;
  close(): Promise<void>;
}

const page = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body ` +
  `style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body>`;

/** Listens on 127.0.0.1:`port` (0: a free port). */
export async function listenForRedirect(port: number): Promise<RedirectListener> {
  let expected: string | undefined;
  let deliver: ((params: URLSearchParams) => void) | undefined;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/callback') return void res.writeHead(404).end();
    const params = url.searchParams;
    if (!expected || params.get('state') !== expected) {
      res
        .writeHead(400, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          page(
            'Not this login',
            'This redirect does not belong to the login toolshed is waiting for (its state does not match).',
          ),
        );
      return;
    }
    const refused = params.get('error');
    res
      .writeHead(refused ? 400 : 200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        refused
          ? page('Authorization refused', 'toolshed was not authorized. You can close this tab; the terminal says why.')
          : page('Authorized', 'toolshed is authorized. You can close this tab.'),
      );
    deliver?.(params);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    wait(state, timeoutMs) {
      expected = state;
      return new Promise<URLSearchParams>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no redirect came back within ${Math.round(timeoutMs / 60_000)} minutes`)),
          timeoutMs,
        );
        deliver = (params) => {
          clearTimeout(timer);
          resolve(params);
        };
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
