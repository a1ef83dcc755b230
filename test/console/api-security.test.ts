/**
 * The console's guards, on `toolshed ui`'s listener and on serve's at /ui/: no cross-site
 * requests (Origin), no state change without a JSON POST carrying X-Toolshed-Console, GET never
 * changes anything, the Host header checked (DNS rebinding), the bearer token of --token-env on
 * every API request, and under serve.auth a token holding the toolshed:console scope.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { serveConsole, type ConsoleEndpoint } from '#internal/core/console/listener.js';
import { consoleHandler } from '#internal/core/console/console.js';
import { serveHttp } from '#internal/core/mcp-server/http/http.js';
import type { HttpEndpoint } from '#internal/core/mcp-server/public-types.js';
import { startAuthServer, type AuthServer } from '../support/oauth.js';
import { tempDir } from '../helpers.js';
import { consoleConfig, post } from './helpers.js';

const work = tempDir();
const open: Array<{ close(): Promise<void> }> = [];
let auth: AuthServer;

beforeAll(async () => {
  auth = await startAuthServer();
}, 60_000);

afterAll(async () => {
  for (const item of open.reverse()) await item.close();
  await auth?.close();
  work.cleanup();
});

async function hostWith(extra: Record<string, unknown> = {}): Promise<ToolHost> {
  const host = await createToolHost({
    cwd: work.dir,
    config: consoleConfig(extra),
    env: { PATH: process.env.PATH },
    waitForServers: false,
  });
  open.push(host);
  return host;
}

async function ui(host: ToolHost, options: { bearerToken?: string } = {}): Promise<ConsoleEndpoint> {
  const endpoint = await serveConsole(host, { host: '127.0.0.1', port: 0, ...options });
  open.push(endpoint);
  return endpoint;
}

/** serve --http with the console mounted at /ui/, as `serve --ui` mounts it. */
async function serveUi(
  host: ToolHost,
  options: { bearerToken?: string } = {},
): Promise<{ endpoint: HttpEndpoint; base: string }> {
  const console = consoleHandler({
    host,
    serving: { mcp: true, transport: 'http' },
    oauth: host.config.serve.auth !== undefined,
  });
  open.push(console);
  const endpoint = await serveHttp(host, {
    host: '127.0.0.1',
    port: 0,
    mount: { prefix: '/ui/', ...console },
    ...options,
  });
  open.push(endpoint);
  return { endpoint, base: new URL('/ui/', endpoint.url).href };
}

/** A GET with a Host header of our choosing (fetch will not send one). */
function getWithHost(url: string, hostHeader: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { host: hostHeader } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.once('error', reject);
  });
}

async function codeOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

describe('console security: toolshed ui', () => {
  let base: string;
  let host: ToolHost;

  beforeAll(async () => {
    host = await hostWith();
    base = (await ui(host)).url;
  }, 60_000);

  it('refuses a request whose Origin is another site, and takes its own', { timeout: 60_000 }, async () => {
    const foreign = await fetch(`${base}api/overview`, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(await codeOf(foreign)).toBe('ACCESS_DENIED');
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    // Another port on loopback is another site too.
    const sibling = await post(`${base}api/call`, { tool: 'echo', args: {} }, { origin: 'http://127.0.0.1:1' });
    expect(sibling.status).toBe(403);
    const own = await post(`${base}api/call`, { tool: 'echo', args: {} }, { origin: new URL(base).origin });
    expect(own.status).toBe(200);
  });

  it('refuses a POST without X-Toolshed-Console or without a JSON content type, saying which', {
    timeout: 60_000,
  }, async () => {
    const bare = await fetch(`${base}api/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'echo', args: {} }),
    });
    expect(bare.status).toBe(403);
    expect(((await bare.json()) as { error: { message: string } }).error.message).toContain('X-Toolshed-Console: 1');
    const form = await fetch(`${base}api/call`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-toolshed-console': '1' },
      body: JSON.stringify({ tool: 'echo', args: {} }),
    });
    expect(form.status).toBe(403);
    expect(((await form.json()) as { error: { message: string } }).error.message).toContain(
      'Content-Type: application/json',
    );
  });

  it('never changes anything on a GET: no call runs, no held call is answered', { timeout: 60_000 }, async () => {
    const before = ((await (await fetch(`${base}api/calls`)).json()) as { calls: unknown[] }).calls.length;
    const call = await fetch(`${base}api/call?tool=echo`);
    expect(call.status).toBe(405);
    expect(call.headers.get('allow')).toBe('POST');
    expect(await codeOf(call)).toBe('METHOD_NOT_ALLOWED');
    const running = post(`${base}api/call`, { tool: 'delete_note', args: { id: 'g1' } });
    let approvals: Array<{ id: string }> = [];
    await expect
      .poll(
        async () =>
          (approvals = ((await (await fetch(`${base}api/approvals`)).json()) as { approvals: Array<{ id: string }> })
            .approvals).length,
        { timeout: 20_000 },
      )
      .toBe(1);
    expect((await fetch(`${base}api/approvals/${approvals[0]!.id}?approved=true`)).status).toBe(405);
    expect(((await (await fetch(`${base}api/approvals`)).json()) as { approvals: unknown[] }).approvals).toHaveLength(
      1,
    );
    await post(`${base}api/approvals/${approvals[0]!.id}`, { approved: false });
    expect(((await (await running).json()) as { outcome: { code: string } }).outcome.code).toBe('APPROVAL_DENIED');
    const after = ((await (await fetch(`${base}api/calls`)).json()) as { calls: Array<{ tool: string }> }).calls;
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)!.tool).toBe('delete_note');
  });

  it('refuses a Host header that does not name the server (DNS rebinding)', { timeout: 60_000 }, async () => {
    expect(await getWithHost(`${base}api/overview`, 'evil.example')).toBe(403);
    expect(await getWithHost(base, `evil.example:${new URL(base).port}`)).toBe(403);
    expect(await getWithHost(`${base}api/overview`, `localhost:${new URL(base).port}`)).toBe(200);
  });
});

describe('console security: authentication', () => {
  it('needs the bearer token on every API request (--token-env), not for the page', { timeout: 60_000 }, async () => {
    const { url } = await ui(await hostWith(), { bearerToken: 'tok-123' });
    const anonymous = await fetch(`${url}api/overview`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('Bearer');
    expect(await codeOf(anonymous)).toBe('AUTH_FAILED');
    expect((await fetch(`${url}api/overview`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(`${url}api/overview`, { headers: { authorization: 'Bearer tok-123' } })).status).toBe(200);
    expect((await fetch(`${url}api/events`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await fetch(url)).status).toBe(200);
  });

  it('needs the toolshed:console scope under serve.auth, and works as the identity', { timeout: 60_000 }, async () => {
    const { url } = await ui(await hostWith({ serve: { auth: { issuer: auth.issuer } } }));
    expect((await fetch(`${url}api/overview`)).status).toBe(401);
    const plain = await auth.userToken({ user: 'alice', audience: url, scope: 'mcp:tools' });
    const refused = await fetch(`${url}api/overview`, { headers: { authorization: `Bearer ${plain.accessToken}` } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('toolshed:console');
    const operator = await auth.userToken({ user: 'alice', audience: url, scope: 'toolshed:console' });
    const answer = await fetch(`${url}api/overview`, { headers: { authorization: `Bearer ${operator.accessToken}` } });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { identity: unknown }).identity).toEqual({
      subject: 'alice',
      issuer: auth.issuer,
    });
    const call = await post(
      `${url}api/call`,
      { tool: 'echo', args: {} },
      { authorization: `Bearer ${operator.accessToken}` },
    );
    expect(call.status).toBe(200);
    const calls = (await (
      await fetch(`${url}api/calls`, { headers: { authorization: `Bearer ${operator.accessToken}` } })
    ).json()) as { calls: Array<{ identity?: unknown }> };
    expect(calls.calls.at(-1)!.identity).toEqual({ subject: 'alice', issuer: auth.issuer });
  });
});

describe('console security: serve --http --ui', () => {
  it("sits behind serve's Host check and bearer token, with the page open to all", { timeout: 60_000 }, async () => {
    const { base } = await serveUi(await hostWith(), { bearerToken: 'serve-tok' });
    expect(await getWithHost(`${base}api/overview`, 'evil.example')).toBe(403);
    const anonymous = await fetch(`${base}api/overview`);
    expect(anonymous.status).toBe(401);
    expect(await codeOf(anonymous)).toBe('AUTH_FAILED');
    const answer = await fetch(`${base}api/overview`, { headers: { authorization: 'Bearer serve-tok' } });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { serving: unknown }).serving).toEqual({ mcp: true, transport: 'http' });
    expect((await fetch(base)).status).toBe(200);
    const foreign = await fetch(`${base}api/overview`, {
      headers: { origin: 'https://evil.example', authorization: 'Bearer serve-tok' },
    });
    expect(foreign.status).toBe(403);
  });

  it('needs the toolshed:console scope under serve.auth', { timeout: 60_000 }, async () => {
    const { endpoint, base } = await serveUi(await hostWith({ serve: { auth: { issuer: auth.issuer } } }));
    const plain = await auth.userToken({ user: 'bob', audience: endpoint.url, scope: 'mcp:tools' });
    expect(
      (await fetch(`${base}api/overview`, { headers: { authorization: `Bearer ${plain.accessToken}` } })).status,
    ).toBe(403);
    const operator = await auth.userToken({ user: 'bob', audience: endpoint.url, scope: 'toolshed:console' });
    const answer = await fetch(`${base}api/overview`, { headers: { authorization: `Bearer ${operator.accessToken}` } });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { identity: unknown }).identity).toEqual({ subject: 'bob', issuer: auth.issuer });
    const anonymous = await fetch(`${base}api/overview`);
    expect(anonymous.status).toBe(401);
    expect(await codeOf(anonymous)).toBe('AUTH_FAILED');
  });
});
