/**
 * MCP sessions across a fleet: three `serve --http --stateless` replicas
 * sharing a real Redis server, behind a real haproxy (round robin), with
 * real SDK clients of both eras. What a session's tool_search loaded is
 * listed by every replica; clients that name no session share nothing; a
 * call held for approval on one replica is answered on another; a session's
 * own search reaches its subscriptions/listen stream on another replica.
 *
 * haproxy forwards the client's Host header, which a replica bound to
 * loopback refuses (403 "Invalid Host header"); this file's config sends
 * each backend its own address as Host (`http-send-name-header Host`, with
 * servers named by their address).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, tempDir } from '../helpers.js';
import { signal, textOf } from '../mcp/setup.js';
import {
  killLeftoversAfterAll,
  startHaproxy,
  startReplica,
  startStateServer,
  type Balancer,
  type Replica,
  type StoreServer,
} from '../support/fleet.js';

killLeftoversAfterAll();

const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };
const ASKS = { ...MODERN, capabilities: { elicitation: { form: {} } } };

/** Round robin over the replicas, each sent its own address as Host (see the file comment). */
const HAPROXY = `global
    maxconn 512
defaults
    mode http
    timeout connect 5s
    timeout client 120s
    timeout server 120s
frontend mcp
    bind 127.0.0.1:{{PORT}}
    default_backend replicas
backend replicas
    balance roundrobin
    http-send-name-header Host
{{ADDRESSES}}
`;

const work = tempDir('toolshed-fleet-sessions-');
let store: StoreServer;
let replicas: Replica[] = [];
let balancer: Balancer;
const open: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  store = await startStateServer();
  const config = path.join(work.dir, 'toolshed.config.json');
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"fleet-sessions","private":true}');
  writeFileSync(
    config,
    JSON.stringify({
      builtins: false,
      cache: { enabled: false },
      plugins: [
        { package: fixture('plugins', 'catalog'), trust: 'trusted' },
        { package: fixture('plugins', 'notes'), trust: 'trusted' },
      ],
      defer: ['*'],
      approve: ['delete_note'],
      state: { store: store.url, prefix: 'fleet-sessions:' },
    }),
  );
  replicas = await Promise.all([0, 1, 2].map(() => startReplica({ cwd: work.dir, config, stateless: true })));
  const servers = replicas.map((replica) => `    server ${replica.address} ${replica.address}`).join('\n');
  balancer = await startHaproxy(HAPROXY.replace('{{ADDRESSES}}', servers), [], work.dir);
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(open.map((client) => client.close()));
  await balancer?.stop();
  await Promise.allSettled(replicas.map((replica) => replica.stop()));
  await store?.stop();
  work.cleanup();
}, 60_000);

/** A 2026-07-28 client of `url`, naming session `session` (or none), sending its POSTs where `route` says. */
async function modern(
  url: string,
  session?: string,
  options: ConstructorParameters<typeof Client>[1] = MODERN,
  route?: (n: number) => string,
): Promise<Client> {
  const client = new Client({ name: 'fleet-sessions', version: '1.0.0' }, options);
  let posts = 0;
  const fetchVia = route
    ? (input: string | URL | Request, init?: RequestInit) =>
        fetch(init?.method === 'POST' ? route(posts++) : input, init)
    : undefined;
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      ...(session ? { requestInit: { headers: { 'mcp-session-id': session } } } : {}),
      ...(fetchVia ? { fetch: fetchVia } : {}),
    }),
  );
  open.push(client);
  return client;
}

/** A 2025-era client (SDK 1.x) through the balancer. */
async function legacy(capabilities: Record<string, unknown> = {}): Promise<LegacyClient> {
  const client = new LegacyClient({ name: 'fleet-sessions-2025', version: '1.0.0' }, { capabilities });
  await client.connect(new LegacyTransport(new URL(balancer.url)));
  open.push(client);
  return client;
}

const names = async (client: { listTools(): Promise<{ tools: Array<{ name: string }> }> }) =>
  (await client.listTools()).tools.map((tool) => tool.name);
const search = async (
  client: { callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown> },
  query: string,
) =>
  JSON.parse(textOf(await client.callTool({ name: 'tool_search', arguments: { query, limit: 1 } }))).tools.map(
    (tool: { name: string }) => tool.name,
  );

describe('a session across three stateless replicas', () => {
  it("lists a session's loaded tool on every replica: 6 of 6 listings", { timeout: 60_000 }, async () => {
    const searcher = await modern(balancer.url, 'fleet-a');
    expect(await search(searcher, 'post to a slack channel')).toEqual(['slack_send_message']);
    const listings: string[][] = [];
    for (const replica of [...replicas, ...replicas]) listings.push(await names(await modern(replica.url, 'fleet-a')));
    expect(listings.filter((listed) => listed.includes('slack_send_message'))).toHaveLength(6);
    // Another session, on the same replicas, has not loaded it.
    expect(await names(await modern(replicas[0]!.url, 'fleet-b'))).toEqual(['tool_search']);
  });

  it('gives a 2025-era client a session id at initialize, so its searches follow it across replicas', {
    timeout: 60_000,
  }, async () => {
    const client = await legacy();
    expect(await search(client, 'create a calendar event')).toEqual(['calendar_create_event']);
    // Three listings in a row go to three replicas (round robin).
    for (let i = 0; i < 3; i++) expect(await names(client)).toContain('calendar_create_event');
  });

  it('keeps two clients that send no session id apart', { timeout: 60_000 }, async () => {
    const a = await legacy();
    const b = await legacy();
    expect(await search(a, 'open a github issue')).toEqual(['github_create_issue']);
    expect(await names(a)).toContain('github_create_issue');
    expect(await names(b)).toEqual(['tool_search']);
    // 2026-07-28 clients without a session id: each request is a session of its own.
    const c = await modern(balancer.url);
    const d = await modern(balancer.url);
    expect(await search(c, 'open a github issue')).toEqual(['github_create_issue']);
    expect(await names(d)).toEqual(['tool_search']);
  });
});

describe('approval across replicas', () => {
  it("holds a 2026-07-28 client's call on one replica and runs it with the answer sent to another", {
    timeout: 60_000,
  }, async () => {
    // The client's POSTs go to replica 1, 2, 3, 1…: the call, then its retry with the answer.
    const routed: string[] = [];
    const client = await modern(balancer.url, 'fleet-approve', ASKS, (n) => {
      const url = replicas[n % 3]!.url;
      routed.push(url);
      return url;
    });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: 'accept', content: { approve: true } };
    });
    const before = routed.length;
    expect(textOf(await client.callTool({ name: 'delete_note', arguments: { id: 'q' } }))).toBe('deleted q');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('delete_note');
    // The first round and the retry reached two different replicas.
    expect(new Set(routed.slice(before))).toHaveProperty('size', 2);
  });

  it('tells a 2025-era client on a stateless fleet why it cannot approve, and what works', {
    timeout: 60_000,
  }, async () => {
    const client = await legacy({ elicitation: { form: {} } });
    client.setRequestHandler((await import('@modelcontextprotocol/sdk/types.js')).ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { approve: true },
    }));
    const refused = JSON.parse(textOf(await client.callTool({ name: 'delete_note', arguments: { id: 'q' } })));
    expect(refused.code).toBe('APPROVAL_DENIED');
    expect(refused.error).toContain('this server is stateless');
    expect(refused.error).toContain('2026-07-28');
  });
});

describe("a session's own list_changed", () => {
  it('reaches the listen stream of the session that searched, on another replica, and no other session', {
    timeout: 60_000,
  }, async () => {
    const counts = { a: 0, b: 0 };
    const heard = { a: signal(), b: signal() };
    const listeners = {
      a: await modern(replicas[0]!.url, 'fleet-listen-a'),
      b: await modern(replicas[0]!.url, 'fleet-listen-b'),
    };
    for (const key of ['a', 'b'] as const) {
      listeners[key].setNotificationHandler('notifications/tools/list_changed', () => {
        counts[key]++;
        heard[key].resolve();
      });
      await listeners[key].listen({ toolsListChanged: true });
    }
    // a's search runs on replica 2; a listens on replica 1.
    expect(await search(await modern(replicas[1]!.url, 'fleet-listen-a'), 'post to a slack channel')).toEqual([
      'slack_send_message',
    ]);
    await heard.a.promise;
    // b's search (replica 3) proves b's stream works; a must not have heard of it.
    expect(await search(await modern(replicas[2]!.url, 'fleet-listen-b'), 'open a github issue')).toEqual([
      'github_create_issue',
    ]);
    await heard.b.promise;
    expect(counts).toEqual({ a: 1, b: 1 });
  });
});
