/**
 * `serve` and tool search: tools/list is the connection's session view, and a
 * tool_search that loads new tools sends list_changed to that client only.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { InMemoryTransport as ModernInMemory } from '@modelcontextprotocol/server';
import { serveHttp } from '#internal/core/mcp-server/http/http.js';
import type { HttpEndpoint } from '#internal/core/mcp-server/public-types.js';
import { createMcpServer } from '#internal/core/mcp-server/protocol/create-server.js';
import { fixtureOptions } from '../helpers.js';
import { signal, textOf } from '../mcp/setup.js';

let host: ToolHost;
let endpoint: HttpEndpoint;
const clients: Array<{ client: Client; changes: number; changed: ReturnType<typeof signal> }> = [];

async function connect() {
  const entry = { client: new Client({ name: 'toolshed-test', version: '1.0.0' }), changes: 0, changed: signal() };
  entry.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    entry.changes++;
    entry.changed.resolve();
  });
  await entry.client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
  clients.push(entry);
  return entry;
}

beforeAll(async () => {
  host = await createToolHost(fixtureOptions(['catalog'], { config: { defer: ['*'] } }));
  endpoint = await serveHttp(host, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  for (const { client } of clients) await client.close();
  await endpoint?.close();
  await host?.close();
});

describe('tool search over serve', () => {
  it('loads found tools into the searching session and tells that client the list changed', async () => {
    const a = await connect();
    const b = await connect();
    expect((await a.client.listTools()).tools.map((t) => t.name)).toEqual(['tool_search']);
    const result = await a.client.callTool({
      name: 'tool_search',
      arguments: { query: 'post to a slack channel', limit: 1 },
    });
    expect(JSON.parse(textOf(result)).tools.map((t: { name: string }) => t.name)).toEqual(['slack_send_message']);
    await a.changed.promise;
    expect((await a.client.listTools()).tools.map((t) => t.name)).toEqual(['tool_search', 'slack_send_message']);
    expect((await b.client.listTools()).tools.map((t) => t.name)).toEqual(['tool_search']);
    // The same search again loads nothing new: no second notification.
    await a.client.callTool({ name: 'tool_search', arguments: { query: 'post to a slack channel', limit: 1 } });
    // b's own search proves b's notifications work; a must not have got one for it.
    await b.client.callTool({ name: 'tool_search', arguments: { query: 'github issue', limit: 1 } });
    await b.changed.promise;
    expect(a.changes).toBe(1);
    expect(b.changes).toBe(1);
    const report = host.explain().search.sessions;
    expect(report.map((s) => s.tools)).toEqual(
      expect.arrayContaining([['slack_send_message'], ['github_create_issue']]),
    );
  });
});

describe('tool search over a connection without MCP sessions (stdio)', () => {
  it("gives the connection a session of its own: its searches grow its list, not the host's default session", async () => {
    const local = await createToolHost(fixtureOptions(['catalog'], { config: { defer: ['*'] } }));
    const [clientSide, serverSide] = ModernInMemory.createLinkedPair();
    const server = createMcpServer(local);
    const client = new ModernClient({ name: 'toolshed-test', version: '1.0.0' });
    const changed = signal();
    client.setNotificationHandler('notifications/tools/list_changed', () => changed.resolve());
    try {
      await server.connect(serverSide);
      await client.connect(clientSide);
      await client.callTool({ name: 'tool_search', arguments: { query: 'create a calendar event', limit: 1 } });
      await changed.promise;
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['tool_search', 'calendar_create_event']);
      // A library caller that names no session uses the default one, which the connection left alone.
      expect((await local.definitions()).map((t) => t.function.name)).toEqual(['tool_search']);
    } finally {
      await client.close();
      await server.close();
      await local.close();
    }
  });
});
