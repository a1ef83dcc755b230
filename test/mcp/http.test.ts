/**
 * Interop over Streamable HTTP on loopback: the official SDK client against
 * serveHttp() in this process, so the test can also watch the host side
 * (the outcome a cancelled call really had).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type CallOutcome, type ToolHost } from 'toolshed';
import { serveHttp } from '#internal/core/mcp-server/http/http.js';
import type { HttpEndpoint } from '#internal/core/mcp-server/public-types.js';
import { mcpConfig, mcpProject, progressOnWire, recordIncoming, signal, textOf } from './setup.js';

// A long TTL: this test flips checks itself instead of waiting for the refresh loop.
const project = mcpProject(60_000);
let host: ToolHost;
let endpoint: HttpEndpoint;
let client: Client;
/** What the client's transport received, in order (see recordIncoming). */
let wire: JSONRPCMessage[] = [];
const listChanged = signal();
/** Every call the server made, as the host saw it: `started` when it began, `done` with its outcome. */
const calls: Array<{ name: string; done: Promise<CallOutcome> }> = [];
let callStarted = signal<string>();

beforeAll(async () => {
  host = await createToolHost({ cwd: project.dir, config: mcpConfig(60_000), env: { PATH: process.env.PATH } });
  const observed: ToolHost = {
    ...host,
    call(name, args, options) {
      const done = host.call(name, args, options);
      calls.push({ name, done });
      callStarted.resolve(name);
      return done;
    },
  };
  endpoint = await serveHttp(observed, { host: '127.0.0.1', port: 0 });
  client = new Client({ name: 'toolshed-test', version: '1.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged.resolve());
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url));
  await client.connect(transport);
  wire = recordIncoming(transport);
});

afterAll(async () => {
  await client?.close();
  await endpoint?.close();
  await host?.close();
  project.cleanup();
});

describe('toolshed serve over Streamable HTTP', () => {
  it('listens on loopback at /mcp with the real port', () => {
    expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(endpoint.url).not.toContain(':0/');
  });

  it('lists tools and calls one', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'shared_a', 'slow']));
    const result = await client.callTool({ name: 'echo', arguments: { over: 'http' } });
    expect(JSON.parse(textOf(result))).toEqual({ over: 'http' });
  });

  it('passes the MCP session id to the handler as ctx.sessionId', async () => {
    const result = await client.callTool({ name: 'chatty', arguments: {} });
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId;
    expect(sessionId).toBeTruthy();
    expect(JSON.parse(textOf(result))).toMatchObject({ sessionId });
  });

  it('returns error envelopes as isError results', async () => {
    const result = await client.callTool({ name: 'needs_key', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result))).toMatchObject({
      code: 'TOOL_NOT_EXPOSED',
      error: expect.stringContaining('PROBE_KEY'),
    });
  });

  it('relays progress on the request stream', async () => {
    const from = wire.length;
    await client.callTool({ name: 'chatty', arguments: {} }, undefined, { onprogress: () => {} });
    const { progress, responseAt, lastProgressAt } = progressOnWire(wire.slice(from));
    expect(progress[0]).toEqual({ progress: 1, total: 2 });
    expect(lastProgressAt).toBeLessThan(responseAt);
  });

  it('aborts the call in its worker when the client cancels', async () => {
    callStarted = signal<string>();
    const controller = new AbortController();
    const pending = client.callTool({ name: 'slow', arguments: { ms: 60_000 } }, undefined, {
      signal: controller.signal,
    });
    expect(await callStarted.promise).toBe('slow');
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    const outcome = await calls.at(-1)!.done;
    expect(outcome).toMatchObject({ ok: false, code: 'TOOL_CANCELLED' });
  });

  it('sends tools/list_changed on the standalone stream when a check flips', async () => {
    writeFileSync(path.join(project.dir, 'own.mode'), 'reason');
    host.invalidateChecks();
    await host.refresh();
    await listChanged.promise;
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('own_check');
    expect(names).toContain('shared_a');
  });

  it('refuses requests without a session, and unknown sessions', async () => {
    const noSession = await fetch(endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(noSession.status).toBe(400);
    const unknown = await fetch(endpoint.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': 'nope',
      },
      body: '{}',
    });
    expect(unknown.status).toBe(404);
  });

  it('rejects a Host header that is not the loopback address it is bound to (DNS rebinding)', async () => {
    const { port } = new URL(endpoint.url);
    const response = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'evil', version: '1' } },
      });
      import('node:http').then(({ request }) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/mcp',
            method: 'POST',
            headers: {
              host: `evil.example:${port}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(body);
      }, reject);
    });
    expect(response).toBe(403);
  });
});
