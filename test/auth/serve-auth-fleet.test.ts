/**
 * `serve.auth` on a stateless fleet: two replicas sharing a real Redis server. A call held for
 * alice's approval on one replica is answered by her retry on the other (the round is forwarded
 * through the store), but a retry that carries its round state with bob's token does not reach
 * her call: the receiving replica sees the round belongs to another identity and starts a call
 * of bob's own.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { serveHttp } from '#internal/core/mcp-server/http/http.js';
import type { HttpEndpoint } from '#internal/core/mcp-server/public-types.js';
import { mcpConfig, mcpProject, textOf } from '../mcp/setup.js';
import { FLEET_KEY, killLeftoversAfterAll, startStateServer, type StoreServer } from '../support/fleet.js';
import { startAuthServer, type AuthServer } from '../support/oauth.js';

killLeftoversAfterAll();

/** One audience for the whole fleet, as a balancer's public URL would be. */
const AUDIENCE = 'https://tools.example/mcp';

const project = mcpProject(60_000);
let auth: AuthServer;
let store: StoreServer;
const hosts: ToolHost[] = [];
const replicas: HttpEndpoint[] = [];
/** the subject of each call of `text`, as the hooks of either replica saw it */
const seen: Array<string | undefined> = [];

beforeAll(async () => {
  auth = await startAuthServer();
  store = await startStateServer();
  for (let index = 0; index < 2; index++) {
    const host = await createToolHost({
      cwd: project.dir,
      config: {
        ...mcpConfig(60_000),
        approve: ['text'],
        state: { store: store.url },
        serve: { auth: { issuer: auth.issuer, audience: AUDIENCE } },
      },
      env: { PATH: process.env.PATH, TOOLSHED_STATE_KEY: FLEET_KEY },
    });
    host.use({ beforeCall: (call) => void (call.tool === 'text' && seen.push(call.identity?.subject)) });
    hosts.push(host);
    replicas.push(await serveHttp(host, { host: '127.0.0.1', port: 0, stateless: true }));
  }
}, 60_000);

afterAll(async () => {
  for (const replica of replicas) await replica.close();
  for (const host of hosts) await host.close();
  await store?.stop();
  await auth?.close();
  project.cleanup();
});

/**
 * Calls `text` (held for approval) as alice on the first replica, the retries that answer the
 * round sent to the second replica with `retryToken`; how many times the user was asked.
 */
async function approveAcrossReplicas(alice: string, retryToken: string): Promise<number> {
  const [first, second] = replicas as [HttpEndpoint, HttpEndpoint];
  const retriesElsewhere: typeof fetch = (input, init) => {
    if (typeof init?.body !== 'string' || !init.body.includes('"requestState"')) return fetch(input, init);
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${retryToken}`);
    return fetch(second.url, { ...init, headers });
  };
  let asked = 0;
  const client = new Client(
    { name: 'fleet-approver', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', async () => {
    asked++;
    return { action: 'accept', content: { approve: true } };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(first.url), {
      requestInit: { headers: { authorization: `Bearer ${alice}` } },
      fetch: retriesElsewhere,
    }),
  );
  try {
    expect(textOf(await client.callTool({ name: 'text', arguments: {} }))).toBe('plain text');
  } finally {
    await client.close();
  }
  return asked;
}

describe('serve.auth on a fleet: held calls belong to an identity', () => {
  it("answers alice's held call from her retry on another replica, and not from bob's", {
    timeout: 60_000,
  }, async () => {
    const alice = (await auth.userToken({ user: 'alice', audience: AUDIENCE })).accessToken;
    const bob = (await auth.userToken({ user: 'bob', audience: AUDIENCE })).accessToken;
    expect(await approveAcrossReplicas(alice, alice)).toBe(1);
    expect(seen.splice(0)).toEqual(['alice']);
    // Bob's retry reached a replica that does not hold the call: the store said whose round it is.
    expect(await approveAcrossReplicas(alice, bob)).toBe(2);
    expect(seen.splice(0)).toEqual(['alice', 'bob']);
  });
});
