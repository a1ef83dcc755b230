/**
 * `serve --http` with `serve.auth` and `access` rules, end to end: real tokens from the test
 * authorization server decide, per request, what a caller is shown and may call (the rule its
 * claims match), its calls-per-minute quota holds over MCP, an identity no rule matches is refused
 * 403, and the audit log names each caller's rule.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { serveHttp } from '#internal/core/mcp-server/http/http.js';
import type { HttpEndpoint } from '#internal/core/mcp-server/public-types.js';
import { mcpConfig, mcpProject, textOf } from '../mcp/setup.js';
import { startAuthServer, type AuthServer } from '../support/oauth.js';
import { tempDir } from '../helpers.js';
import { INITIALIZE, post } from './raw-mcp.js';

const project = mcpProject(60_000);
const logs = tempDir('toolshed-serve-access-');
const log = path.join(logs.dir, 'audit.jsonl');
let auth: AuthServer;
let host: ToolHost;
let endpoint: HttpEndpoint;

beforeAll(async () => {
  auth = await startAuthServer({ accounts: { alice: { groups: ['eng'] }, bob: { groups: ['support'] } } });
  host = await createToolHost({
    cwd: project.dir,
    env: { PATH: process.env.PATH },
    config: {
      ...mcpConfig(60_000),
      serve: { auth: { issuer: auth.issuer, scopes: ['mcp:tools'] } },
      access: [
        { name: 'eng', when: { claims: { groups: 'eng' } } },
        {
          name: 'support',
          when: { claims: { groups: 'support' } },
          enable: ['echo', 'text'],
          quota: { callsPerMinute: 2 },
        },
      ],
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

/** A v2 SDK client connected with `user`'s token; the caller closes it. */
async function clientFor(user: string): Promise<Client> {
  const { accessToken } = await auth.userToken({ user, audience: endpoint.url, scope: 'mcp:tools' });
  const client = new Client({ name: `access-${user}`, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(endpoint.url), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  return client;
}

const auditLines = () =>
  readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('serve.auth with access rules', () => {
  it("shows each caller the tools of the rule its token's claims match, and refuses the rest", {
    timeout: 60_000,
  }, async () => {
    const alice = await clientFor('alice');
    const bob = await clientFor('bob');
    try {
      const aliceTools = (await alice.listTools()).tools.map((tool) => tool.name);
      const bobTools = (await bob.listTools()).tools.map((tool) => tool.name).sort();
      expect(aliceTools).toEqual(expect.arrayContaining(['echo', 'text', 'thread', 'slow']));
      expect(bobTools).toEqual(['echo', 'text']);
      const refused = await bob.callTool({ name: 'thread', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(JSON.parse(textOf(refused))).toMatchObject({ code: 'TOOL_NOT_EXPOSED' });
      expect(JSON.parse(textOf(refused)).error).toContain("access rule 'support'");
      expect((await alice.callTool({ name: 'thread', arguments: {} })).isError).toBeFalsy();
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  it("holds a caller to its rule's calls per minute over MCP (QUOTA_EXCEEDED), and not another caller", {
    timeout: 60_000,
  }, async () => {
    const bob = await clientFor('bob');
    const alice = await clientFor('alice');
    try {
      // bob's rule allows 2 calls a clock minute: of 5 calls in a row at least one is refused, even
      // across a minute's end (at most 2 before it and 2 after).
      const outcomes = [];
      for (let i = 0; i < 5; i++) outcomes.push(await bob.callTool({ name: 'text', arguments: {} }));
      const codes = outcomes.map((result) => (result.isError ? JSON.parse(textOf(result)).code : 'OK'));
      expect(codes).toContain('QUOTA_EXCEEDED');
      expect(codes.filter((code) => code === 'OK').length).toBeLessThanOrEqual(4);
      expect((await alice.callTool({ name: 'text', arguments: {} })).isError).toBeFalsy();
    } finally {
      await bob.close();
      await alice.close();
    }
  });

  it('refuses an identity no rule matches with 403 and ACCESS_DENIED', { timeout: 60_000 }, async () => {
    const { accessToken } = await auth.userToken({ user: 'mallory', audience: endpoint.url, scope: 'mcp:tools' });
    const refused = await post(endpoint.url, INITIALIZE, { token: accessToken });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'Forbidden: mallory may not use this host: no access rule matches it',
    );
  });

  it("names each caller's rule in the audit log, and the refusal of the one no rule matches", {
    timeout: 60_000,
  }, async () => {
    await expect.poll(() => auditLines().some((line) => line.refused === 403)).toBe(true);
    const lines = auditLines();
    const calls = lines.filter((line) => line.tool !== undefined);
    expect(
      calls
        .filter((line) => (line.identity as { subject: string }).subject === 'bob')
        .every((line) => line.rule === 'support'),
    ).toBe(true);
    expect(
      calls
        .filter((line) => (line.identity as { subject: string }).subject === 'alice')
        .every((line) => line.rule === 'eng'),
    ).toBe(true);
    expect(calls.some((line) => line.code === 'QUOTA_EXCEEDED' && line.rule === 'support')).toBe(true);
    expect(lines.find((line) => line.refused === 403)).toMatchObject({
      reason: 'Forbidden: mallory may not use this host: no access rule matches it',
      identity: { subject: 'mallory', issuer: auth.issuer },
    });
  });
});
