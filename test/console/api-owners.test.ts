/**
 * The console under serve.auth holds its identities to the owner checks of MCP requests, and
 * audits its refusals as serve does. A real `serve --http` with the console at /ui/, a real MCP
 * client whose todo list lives in its session (ctx.session), and real tokens: an identity under a
 * narrower access rule neither lists that session nor calls into it; each refusal of the console's,
 * on serve's mount and on `toolshed ui`'s own listener, is a line in the audit log.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { consoleHandler } from '#internal/core/console/console.js';
import { serveConsole } from '#internal/core/console/listener.js';
import { serveHttp } from '#internal/core/mcp-server/http/http.js';
import type { HttpEndpoint } from '#internal/core/mcp-server/public-types.js';
import { startAuthServer, type AuthServer } from '../support/oauth.js';
import { tempDir } from '../helpers.js';
import { post } from './helpers.js';

const work = tempDir('toolshed-console-owners-');
// The audit log lies outside every folder the model's tools can write.
const logs = tempDir('toolshed-console-owners-log-');
const log = path.join(logs.dir, 'audit.jsonl');
const open: Array<{ close(): Promise<void> }> = [];
let auth: AuthServer;
let host: ToolHost;
let endpoint: HttpEndpoint;
let base: string;

beforeAll(async () => {
  auth = await startAuthServer({ accounts: { alice: { groups: ['ops'] }, mallory: { groups: ['support'] } } });
  host = await createToolHost({
    cwd: work.dir,
    env: { PATH: process.env.PATH },
    config: {
      cache: { enabled: false },
      enable: ['todo'],
      serve: { auth: { issuer: auth.issuer } },
      access: [
        { name: 'ops', when: { claims: { groups: 'ops' } } },
        { name: 'support', when: { claims: { groups: 'support' } }, enable: ['todo'] },
      ],
      audit: { to: log },
    },
  });
  open.push(host);
  // As `serve --http --ui` mounts it: the console lists serve's own sessions.
  const console = consoleHandler({
    host,
    serving: { mcp: true, transport: 'http' },
    sessions: () => endpoint.sessionList(),
    oauth: true,
  });
  open.push(console);
  endpoint = await serveHttp(host, { host: '127.0.0.1', port: 0, mount: { prefix: '/ui/', ...console } });
  open.push(endpoint);
  base = new URL('/ui/', endpoint.url).href;
}, 60_000);

afterAll(async () => {
  for (const item of open.reverse()) await item.close();
  await auth?.close();
  work.cleanup();
  logs.cleanup();
});

const bearer = async (user: string, scope: string) => ({
  authorization: `Bearer ${(await auth.userToken({ user, audience: endpoint.url, scope })).accessToken}`,
});

/** The audit log's refusal lines, as they are written (the sink batches its writes). */
const refusals = () =>
  readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.refused !== undefined);

describe('console owner checks under serve.auth', () => {
  it("keeps another identity's MCP session from a narrower console identity: not listed, not called into, refusal audited", {
    timeout: 60_000,
  }, async () => {
    // Alice's MCP client keeps a task list in its session.
    const client = new Client({ name: 'alice-agent', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
      requestInit: { headers: await bearer('alice', 'mcp:tools') },
    });
    await client.connect(transport);
    open.push(client);
    await client.callTool({
      name: 'todo_write',
      arguments: { todos: [{ content: 'rotate the prod database password' }] },
    });
    const aliceSession = transport.sessionId!;
    expect(aliceSession).toBeTruthy();

    const mallory = await bearer('mallory', 'toolshed:console');
    const listed = (await (await fetch(`${base}api/sessions`, { headers: mallory })).json()) as {
      sessions: Array<{ id: string }>;
    };
    expect(listed.sessions.map((s) => s.id)).not.toContain(aliceSession);

    const stolen = await post(`${base}api/call`, { tool: 'todo_read', sessionId: aliceSession }, mallory);
    expect(stolen.status).toBe(403);
    const body = await stolen.text();
    expect(body).not.toContain('rotate the prod');
    expect(JSON.parse(body)).toMatchObject({
      error: { code: 'ACCESS_DENIED', message: expect.stringContaining('belongs to another identity') },
    });
    await expect.poll(refusals).toContainEqual(
      expect.objectContaining({
        refused: 403,
        reason: expect.stringContaining('belongs to another identity'),
        identity: { subject: 'mallory', issuer: auth.issuer },
        sessionId: aliceSession,
        client: '127.0.0.1',
      }),
    );

    // Her own console session works, and is hers alone: not the default another identity's calls share.
    const own = await post(`${base}api/call`, { tool: 'todo_read' }, mallory);
    expect(own.status).toBe(200);
    expect(JSON.stringify(await own.json())).not.toContain('rotate the prod');
    // Nor does she see Alice's calls.
    const calls = (await (await fetch(`${base}api/calls`, { headers: mallory })).json()) as {
      calls: Array<{ identity?: { subject: string } }>;
    };
    expect(calls.calls.map((c) => c.identity?.subject)).toEqual(['mallory']);

    // Alice's rule narrows nothing: she lists every session, and calls in her own.
    const alice = await bearer('alice', 'toolshed:console');
    const all = (await (await fetch(`${base}api/sessions`, { headers: alice })).json()) as {
      sessions: Array<{ id: string }>;
    };
    expect(all.sessions.map((s) => s.id)).toContain(aliceSession);
    const mine = await post(`${base}api/call`, { tool: 'todo_read', sessionId: aliceSession }, alice);
    expect(mine.status).toBe(200);
    expect(JSON.stringify(await mine.json())).toContain('rotate the prod');
  });

  it("audits the console's own refusals on serve's mount: a token without the console scope, a foreign Origin", {
    timeout: 60_000,
  }, async () => {
    const plain = await bearer('alice', 'mcp:tools');
    expect((await fetch(`${base}api/overview`, { headers: plain })).status).toBe(403);
    await expect.poll(refusals).toContainEqual(
      expect.objectContaining({
        refused: 403,
        reason: expect.stringContaining('lacks the scope toolshed:console'),
        identity: { subject: 'alice', issuer: auth.issuer },
      }),
    );
    const alice = await bearer('alice', 'toolshed:console');
    expect((await fetch(`${base}api/overview`, { headers: { ...alice, origin: 'https://evil.example' } })).status).toBe(
      403,
    );
    await expect
      .poll(refusals)
      .toContainEqual(
        expect.objectContaining({ refused: 403, reason: expect.stringContaining('https://evil.example') }),
      );
    expect(
      (
        await fetch(`${base}api/call`, {
          method: 'POST',
          headers: { ...alice, 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(403);
    await expect
      .poll(refusals)
      .toContainEqual(expect.objectContaining({ refused: 403, reason: expect.stringContaining('X-Toolshed-Console') }));
  });
});

describe("toolshed ui's own listener audits its refusals", () => {
  it('writes a line for a bad bearer token, a foreign Host and a foreign Origin', { timeout: 60_000 }, async () => {
    const uiLogs = tempDir('toolshed-console-owners-ui-');
    const uiLog = path.join(uiLogs.dir, 'audit.jsonl');
    const uiHost = await createToolHost({
      cwd: work.dir,
      env: { PATH: process.env.PATH },
      config: { builtins: false, cache: { enabled: false }, audit: { to: uiLog } },
    });
    const ui = await serveConsole(uiHost, { host: '127.0.0.1', port: 0, bearerToken: 'ui-token' });
    try {
      const lines = () =>
        readFileSync(uiLog, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect((await fetch(`${ui.url}api/overview`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      await expect.poll(lines).toContainEqual({
        time: expect.any(String),
        refused: 401,
        reason: 'send Authorization: Bearer <token>',
        client: '127.0.0.1',
      });
      const status = await new Promise<number>((resolve, reject) => {
        http
          .get(
            `${ui.url}api/overview`,
            { headers: { host: 'evil.example', authorization: 'Bearer ui-token' } },
            (response) => {
              response.resume();
              resolve(response.statusCode ?? 0);
            },
          )
          .once('error', reject);
      });
      expect(status).toBe(403);
      await expect.poll(lines).toContainEqual(
        expect.objectContaining({
          refused: 403,
          reason: expect.stringContaining('Invalid Host header: "evil.example"'),
        }),
      );
      expect(
        (
          await fetch(`${ui.url}api/overview`, {
            headers: { authorization: 'Bearer ui-token', origin: 'https://evil.example' },
          })
        ).status,
      ).toBe(403);
      await expect
        .poll(lines)
        .toContainEqual(
          expect.objectContaining({ refused: 403, reason: expect.stringContaining('is not this console') }),
        );
      expect((await fetch(`${ui.url}api/overview`, { headers: { authorization: 'Bearer ui-token' } })).status).toBe(
        200,
      );
    } finally {
      await ui.close();
      await uiHost.close();
      uiLogs.cleanup();
    }
  });
});
