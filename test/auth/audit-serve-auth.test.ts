/**
 * `serve --http` with `serve.auth` and `audit`: a call made with a real token from the test
 * authorization server gets its line with the token's subject and issuer, and the token itself
 * appears in no line.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { serveHttp } from '#internal/core/mcp-server/http/http.js';
import type { HttpEndpoint } from '#internal/core/mcp-server/public-types.js';
import { mcpConfig, mcpProject } from '../mcp/setup.js';
import { startAuthServer, type AuthServer } from '../support/oauth.js';
import { SkewedClock, tempDir } from '../helpers.js';
import { INITIALIZE, LIST, post } from './raw-mcp.js';

const project = mcpProject(60_000);
const logs = tempDir('toolshed-audit-auth-');
const log = path.join(logs.dir, 'serve-auth.jsonl');
let auth: AuthServer;
let host: ToolHost;
let endpoint: HttpEndpoint;
/** the host's clock: a test moves it past a token's exp instead of waiting */
const clock = new SkewedClock();

beforeAll(async () => {
  auth = await startAuthServer({ accounts: { alice: { groups: ['eng'] } } });
  host = await createToolHost({
    clock,
    cwd: project.dir,
    env: { PATH: process.env.PATH },
    config: {
      ...mcpConfig(60_000),
      serve: { auth: { issuer: auth.issuer, scopes: ['mcp:tools'], clockToleranceSec: 0 } },
      audit: { to: log },
    },
  });
  endpoint = await serveHttp(host, { host: '127.0.0.1', port: 0 });
}, 60_000);
afterAll(async () => {
  await endpoint?.close();
  await host?.close();
  await auth?.close();
  project.cleanup();
  logs.cleanup();
});

it('writes the caller of a served call from its token, never the token', { timeout: 60_000 }, async () => {
  const token = (await auth.userToken({ user: 'alice', audience: endpoint.url, scope: 'mcp:tools' })).accessToken;
  const client = new Client({ name: 'audit-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(endpoint.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    await client.callTool({ name: 'no_such_tool', arguments: {} });
  } finally {
    await client.close();
  }
  await expect.poll(() => readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).length).toBe(2);
  const text = readFileSync(log, 'utf8');
  const lines = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(lines.map((line) => [line.tool, line.code, line.identity])).toEqual([
    ['echo', 'OK', { subject: 'alice', issuer: auth.issuer }],
    ['no_such_tool', 'UNKNOWN_TOOL', { subject: 'alice', issuer: auth.issuer }],
  ]);
  expect(text).not.toContain(token);
  expect(text).not.toContain(token.split('.')[2]);
});

it('writes the line of each request refused before it became a call: no token, another audience, an expired token, a foreign session', {
  timeout: 60_000,
}, async () => {
  const before = readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).length;
  const elsewhere = (await auth.userToken({ user: 'mallory', audience: 'http://127.0.0.1:1/mcp', scope: 'mcp:tools' }))
    .accessToken;
  // Expired only once the host's clock moves past its minute: no loaded machine outlasts it before that.
  const expired = (await auth.userToken({ user: 'mallory', audience: endpoint.url, scope: 'mcp:tools', ttlSec: 60 }))
    .accessToken;
  const alice = (await auth.userToken({ user: 'alice', audience: endpoint.url, scope: 'mcp:tools' })).accessToken;
  const bob = (await auth.userToken({ user: 'bob', audience: endpoint.url, scope: 'mcp:tools' })).accessToken;
  expect((await post(endpoint.url, LIST)).status).toBe(401);
  expect((await post(endpoint.url, LIST, { token: elsewhere })).status).toBe(401);
  const opened = await post(endpoint.url, INITIALIZE, { token: alice });
  expect(opened.status).toBe(200);
  const session = opened.headers.get('mcp-session-id')!;
  await opened.text();
  expect((await post(endpoint.url, LIST, { token: bob, session })).status).toBe(403);
  clock.advance(61_000);
  expect((await post(endpoint.url, LIST, { token: expired })).status).toBe(401);
  await expect.poll(() => readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).length).toBe(before + 4);
  const text = readFileSync(log, 'utf8');
  const refused = text
    .trim()
    .split('\n')
    .slice(before)
    .map((line) => JSON.parse(line));
  expect(
    refused.map((line) => [line.refused, line.client, line.identity?.subject ?? null, line.sessionId ?? null]),
  ).toEqual([
    [401, '127.0.0.1', null, null],
    [401, '127.0.0.1', null, null],
    [403, '127.0.0.1', 'bob', session],
    [401, '127.0.0.1', null, null],
  ]);
  expect(refused[1].reason).toMatch(/aud/);
  expect(refused[2].reason).toMatch(/another identity|belongs/);
  expect(refused[3].reason).toMatch(/expired/i);
  for (const token of [elsewhere, expired, alice, bob]) expect(text).not.toContain(token.split('.')[2]);
});
