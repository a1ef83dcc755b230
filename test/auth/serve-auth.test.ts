/**
 * `serve --http` as an OAuth resource server (`serve.auth`), against a real authorization server
 * (oidc-provider, test/support/oauth.ts) and real MCP clients: a valid token is admitted and its
 * identity reaches the call (hooks see the subject, never the token), tokens for another audience,
 * expired ones and ones without the required scope are refused with challenges that name the
 * protected resource metadata, sessions belong to the identity that opened them (a session and a
 * stateless session id, a call held for approval), the identity reaches calls made as tasks, and
 * the sessions quota of the caller's access rule holds.
 */
import { fileURLToPath } from 'node:url';
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  toolDeclarationFromMcpTool,
} from '@modelcontextprotocol/ext-tasks/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type CallerIdentity, type PluginEntry, type ToolHost } from 'toolshed';
import { serveHttp } from '#internal/core/mcp-server/http/http.js';
import type { HttpEndpoint } from '#internal/core/mcp-server/public-types.js';
import { mcpConfig, mcpProject, signal, textOf } from '../mcp/setup.js';
import { startAuthServer, type AuthServer } from '../support/oauth.js';
import { INITIALIZE, LIST, post } from './raw-mcp.js';
import { SkewedClock } from '../helpers.js';

const project = mcpProject(60_000);
let auth: AuthServer;
let host: ToolHost;
/** a server with sessions (2025-era clients) beside the per-request 2026-07-28 path */
let endpoint: HttpEndpoint;
/** a stateless one over the same host */
let stateless: HttpEndpoint;
/** who each call was for, as the hooks saw it */
const seen: Array<{ tool: string; identity: CallerIdentity | undefined }> = [];
let started = signal<string>();
/** the host's clock: token expiry is checked against it, so a test moves it past a token's exp */
const clock = new SkewedClock();

beforeAll(async () => {
  auth = await startAuthServer({ accounts: { alice: { groups: ['eng'] } } });
  host = await createToolHost({
    clock,
    cwd: project.dir,
    config: {
      ...mcpConfig(60_000),
      plugins: [
        ...(mcpConfig(60_000).plugins as PluginEntry[]),
        { package: fileURLToPath(new URL('../mcp/fixtures/long-runner', import.meta.url)), trust: 'trusted' },
      ],
      approve: ['text'],
      serve: { auth: { issuer: auth.issuer, scopes: ['mcp:tools'], clockToleranceSec: 0 } },
      access: [{ name: 'one-session', when: { subject: 'carol' }, quota: { sessions: 1 } }, { name: 'everyone' }],
    },
    env: { PATH: process.env.PATH },
  });
  host.use({
    beforeCall(call) {
      seen.push({ tool: call.tool, identity: call.identity });
      started.resolve(call.tool);
    },
  });
  endpoint = await serveHttp(host, { host: '127.0.0.1', port: 0 });
  stateless = await serveHttp(host, { host: '127.0.0.1', port: 0, stateless: true });
}, 60_000);

afterAll(async () => {
  await endpoint?.close();
  await stateless?.close();
  await host?.close();
  await auth?.close();
  project.cleanup();
});

/** A token for `user`, for the endpoint at `url` (its resource, the default audience). */
const tokenFor = async (user: string, url: string, scope?: string) =>
  (await auth.userToken({ user, audience: url, ...(scope ? { scope } : {}) })).accessToken;

/** The JSON-RPC response in a reply, plain JSON or the first response event of an SSE stream. */
async function answer(response: Response): Promise<{ result?: Record<string, unknown>; error?: { message: string } }> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) return JSON.parse(text);
  const events = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { id?: unknown });
  return events.find((event) => event.id !== undefined) as never;
}

/** Opens a 2025-era session as the token's holder; its id. */
async function openSession(url: string, token: string): Promise<string> {
  const opened = await post(url, INITIALIZE, { token });
  expect(opened.status, await opened.clone().text()).toBe(200);
  const id = opened.headers.get('mcp-session-id')!;
  await answer(opened);
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { token, session: id });
  return id;
}

describe('serve.auth: who may call', () => {
  it('answers a request without a token 401, naming the protected resource metadata, which names the issuer', {
    timeout: 60_000,
  }, async () => {
    const refused = await post(endpoint.url, INITIALIZE);
    expect(refused.status).toBe(401);
    const metadataUrl = endpoint.url.replace(/\/mcp$/, '/.well-known/oauth-protected-resource/mcp');
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
    const metadata = await fetch(metadataUrl);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({
      resource: endpoint.url,
      authorization_servers: [auth.issuer],
      scopes_supported: ['mcp:tools'],
    });
    // Clients that probe the bare well-known path get the same document.
    const bare = await fetch(endpoint.url.replace(/\/mcp$/, '/.well-known/oauth-protected-resource'));
    expect(await bare.json()).toMatchObject({ resource: endpoint.url });
  });

  it('admits a valid token; the call is made for its identity, and hooks see the subject but never the token', {
    timeout: 60_000,
  }, async () => {
    const token = await tokenFor('alice', endpoint.url);
    // A 2026-07-28 client (served per request)…
    const client = new Client({ name: 'modern', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(endpoint.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      expect(JSON.parse(textOf(await client.callTool({ name: 'echo', arguments: { from: 'modern' } })))).toEqual({
        from: 'modern',
      });
    } finally {
      await client.close();
    }
    // …and a 2025-era one (a session).
    const legacy = new Client1({ name: 'legacy', version: '1.0.0' });
    await legacy.connect(
      new Transport1(new URL(endpoint.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    try {
      expect(JSON.parse(textOf(await legacy.callTool({ name: 'echo', arguments: { from: 'legacy' } })))).toEqual({
        from: 'legacy',
      });
    } finally {
      await legacy.close();
    }
    const calls = seen.filter((entry) => entry.tool === 'echo').slice(-2);
    expect(calls.map((entry) => entry.identity?.subject)).toEqual(['alice', 'alice']);
    expect(calls[0]!.identity).toMatchObject({
      issuer: auth.issuer,
      scopes: expect.arrayContaining(['mcp:tools']),
      claims: { groups: ['eng'] },
    });
    expect(JSON.stringify(calls)).not.toContain(token);
  });

  it('refuses a token issued for another audience (401)', { timeout: 60_000 }, async () => {
    const elsewhere = await tokenFor('alice', 'http://127.0.0.1:1/other');
    const refused = await post(endpoint.url, INITIALIZE, { token: elsewhere });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({
      error: 'invalid_token',
      error_description: expect.stringContaining('"aud"'),
    });
  });

  it('refuses a token once it expired (401)', { timeout: 60_000 }, async () => {
    // A lifetime no loaded machine outlasts between minting and the first request; the host's clock then moves past it.
    const { accessToken } = await auth.userToken({ user: 'alice', audience: endpoint.url, ttlSec: 60 });
    const before = await post(endpoint.url, INITIALIZE, { token: accessToken });
    expect(before.status).toBe(200);
    await before.text();
    clock.advance(61_000);
    const after = await post(endpoint.url, INITIALIZE, { token: accessToken });
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ error: 'invalid_token', error_description: 'Token has expired' });
  });

  it('refuses a token without the required scope (403 insufficient_scope)', { timeout: 60_000 }, async () => {
    const readOnly = await tokenFor('alice', endpoint.url, 'tools:read');
    const refused = await post(endpoint.url, INITIALIZE, { token: readOnly });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toMatch(
      /error="insufficient_scope".*scope="mcp:tools".*resource_metadata=/,
    );
  });
});

describe('serve.auth: sessions belong to an identity', () => {
  it("refuses alice's session to bob's token (403), and keeps serving alice", { timeout: 60_000 }, async () => {
    const alice = await tokenFor('alice', endpoint.url);
    const bob = await tokenFor('bob', endpoint.url);
    const id = await openSession(endpoint.url, alice);
    const foreign = await post(endpoint.url, LIST, { token: bob, session: id });
    expect(foreign.status).toBe(403);
    const refusal = await answer(foreign);
    expect(refusal.error?.message).toContain('belongs to another identity');
    expect(refusal.error?.message).not.toContain('alice');
    const own = await post(endpoint.url, LIST, { token: alice, session: id });
    expect(own.status).toBe(200);
    expect((await answer(own)).result?.tools).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'echo' })]),
    );
  });

  it("refuses a stateless server's session id to another identity (403), on its initialize and its calls", {
    timeout: 60_000,
  }, async () => {
    const alice = await tokenFor('alice', stateless.url);
    const bob = await tokenFor('bob', stateless.url);
    const opened = await post(stateless.url, INITIALIZE, { token: alice });
    expect(opened.status).toBe(200);
    const id = opened.headers.get('mcp-session-id')!;
    expect(id).toBeTruthy();
    await opened.text();
    expect((await post(stateless.url, LIST, { token: bob, session: id })).status).toBe(403);
    // Re-initializing under alice's id would overwrite what her client declared.
    expect((await post(stateless.url, INITIALIZE, { token: bob, session: id })).status).toBe(403);
    const own = await post(stateless.url, LIST, { token: alice, session: id });
    expect(own.status).toBe(200);
    expect((await answer(own)).result?.tools).toBeDefined();
  });

  it("holds an identity to its access rule's quota.sessions: 429 while its sessions are busy, its idlest making room otherwise", {
    timeout: 60_000,
  }, async () => {
    const carol = await tokenFor('carol', endpoint.url);
    const first = await openSession(endpoint.url, carol);
    started = signal<string>();
    const busy = post(
      endpoint.url,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'slow', arguments: { ms: 3_000 } } },
      { token: carol, session: first },
    );
    expect(await started.promise).toBe('slow');
    const refused = await post(endpoint.url, INITIALIZE, { token: carol });
    expect(refused.status).toBe(429);
    expect((await answer(refused)).error?.message).toMatch(
      /Too many sessions for this identity: it holds 1, its access rule allows 1/,
    );
    // Another identity is not counted against carol's quota.
    await openSession(endpoint.url, await tokenFor('bob', endpoint.url));
    expect((await answer(await busy)).result).toBeDefined();
    // Once idle, carol's first session makes room for her next one.
    await openSession(endpoint.url, carol);
    expect((await post(endpoint.url, LIST, { token: carol, session: first })).status).toBe(404);
  });
});

describe('serve.auth: the identity on every call path', () => {
  it("does not let another identity answer a call held for alice's approval", { timeout: 60_000 }, async () => {
    const alice = await tokenFor('alice', endpoint.url);
    const bob = await tokenFor('bob', endpoint.url);
    // A 2026-07-28 client answers the approval round by retrying the call with the round's state;
    // its fetch sends that retry with bob's token, as someone who stole the state would.
    const retriesAsBob: typeof fetch = (input, init) => {
      if (typeof init?.body !== 'string' || !init.body.includes('"requestState"')) return fetch(input, init);
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${bob}`);
      return fetch(input, { ...init, headers });
    };
    const asked: string[] = [];
    const client = new Client(
      { name: 'approver', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: 'accept', content: { approve: true } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(endpoint.url), {
        requestInit: { headers: { authorization: `Bearer ${alice}` } },
        fetch: retriesAsBob,
      }),
    );
    try {
      const before = seen.length;
      expect(textOf(await client.callTool({ name: 'text', arguments: {} }))).toBe('plain text');
      // Bob's answer did not reach alice's held call: his retry started a call of his own, which asked again and ran
      // for him.
      expect(asked).toHaveLength(2);
      expect(seen.slice(before).map((entry) => [entry.tool, entry.identity?.subject])).toEqual([
        ['text', 'alice'],
        ['text', 'bob'],
      ]);
    } finally {
      await client.close();
    }
  });

  it('makes a call run as a task (2025-11-25) for the identity that asked', { timeout: 60_000 }, async () => {
    const token = await tokenFor('alice', endpoint.url);
    const client = new Client({ name: 'tasks', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(endpoint.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const tasks = createTaskSessionFromClient(client, { endpointId: 'serve-auth-tasks' });
    try {
      const long = (await client.listTools()).tools.find((tool) => tool.name === 'long_echo')!;
      const execution = await tasks.callTool(
        'long_echo',
        { text: 'as a task', steps: 2, stepMs: 100 },
        { declaration: toolDeclarationFromMcpTool(long), task: { preference: 'require' } },
      );
      expect(execution.kind).toBe('task');
      const { outcome } = await execution.settle();
      expect(textOf(resultFromTaskOutcome(outcome))).toBe('echo: as a task');
      expect(seen.filter((entry) => entry.tool === 'long_echo').map((entry) => entry.identity?.subject)).toEqual([
        'alice',
      ]);
    } finally {
      await tasks.close();
      await client.close();
    }
  });
});
