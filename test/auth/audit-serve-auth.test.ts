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
import { serveHttp, type HttpEndpoint } from '#internal/core/mcp-server/http.js';
import { mcpConfig, mcpProject } from '../mcp/setup.js';
import { startAuthServer, type AuthServer } from '../support/oauth.js';
import { tempDir } from '../helpers.js';

const project = mcpProject(60_000);
const logs = tempDir('toolshed-audit-auth-');
const log = path.join(logs.dir, 'serve-auth.jsonl');
let auth: AuthServer;
let host: ToolHost;
let endpoint: HttpEndpoint;

beforeAll(async () => {
  auth = await startAuthServer({ accounts: { alice: { groups: ['eng'] } } });
  host = await createToolHost({ cwd: project.dir, env: { PATH: process.env.PATH }, config: { ...mcpConfig(60_000), serve: { auth: { issuer: auth.issuer, scopes: ['mcp:tools'] } }, audit: { to: log } } });
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
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
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
