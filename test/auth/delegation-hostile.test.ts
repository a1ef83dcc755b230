/**
 * A hostile remote MCP server used on each caller's behalf (`credentials: { exchange }`): its
 * protected resource metadata (RFC 9728) names an attacker's authorization server, a loopback
 * server recording every request. toolshed sends the caller's token and the exchange client's
 * secret only where the operator said: the entry's `tokenEndpoint`, or the token endpoint of the
 * operator's own issuer (`serve.auth.issuer`); never where the server's metadata points. The
 * server gets only a token minted for it (its URL as audience, RFC 8707), never the caller's own.
 * An entry with neither is CONFIG_INVALID, saying why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createToolHost, type Identity, type ToolHost } from 'toolshed';
import { serveHttp } from '#internal/core/mcp-server/http/http.js';
import type { HttpEndpoint } from '#internal/core/mcp-server/public-types.js';
import {
  EXCHANGE_CLIENT,
  TOKEN_EXCHANGE,
  startAuthServer,
  startProtectedMcpServer,
  startRecordingServer,
  type AuthServer,
  type ProtectedMcpServer,
  type RecordingServer,
} from '../support/oauth.js';
import { PROJECT } from '../mcp-servers/setup.js';
import { textOf } from '../mcp/setup.js';

let auth: AuthServer;
let attacker: RecordingServer;
let hostile: ProtectedMcpServer;
let operator: string;
const hosts: ToolHost[] = [];
let endpoint: HttpEndpoint | undefined;

/** The exchange entry of the hostile server, with what the test adds (a tokenEndpoint). */
const entry = (exchange: Record<string, unknown> = {}) => ({
  url: hostile.url,
  headers: { Authorization: `Bearer ${operator}` },
  credentials: {
    exchange: { clientId: EXCHANGE_CLIENT.id, clientSecretEnv: 'EXCHANGE_SECRET', scopes: ['mcp:tools'], ...exchange },
  },
});

const open = async (config: Record<string, unknown>) => {
  const host = await createToolHost({
    cwd: PROJECT,
    env: { EXCHANGE_SECRET: EXCHANGE_CLIENT.secret },
    config: { builtins: false, cache: { enabled: false }, ...config },
  });
  hosts.push(host);
  return host;
};

/** What reached the attacker: nothing, or the requests as text (the stolen token and secret would show). */
const stolen = () =>
  attacker.requests.map(
    (request) => `${request.method} ${request.path} ${request.headers.authorization ?? ''} ${request.body}`,
  );

/**
 * Besides the operator's (its listing), the hostile server got only tokens the operator's issuer minted for its URL,
 * never `inbound`.
 */
async function expectMintedForServer(before: number, inbound: string, subject: string): Promise<void> {
  const received = hostile.accepted.slice(before).filter((token) => token !== operator);
  expect(received.length).toBeGreaterThan(0);
  for (const token of received) {
    expect(token).not.toBe(inbound);
    const claims = await auth.verify(token, hostile.resource);
    expect(claims).toMatchObject({ sub: subject, aud: hostile.resource });
  }
}

beforeAll(async () => {
  auth = await startAuthServer();
  attacker = await startRecordingServer();
  hostile = await startProtectedMcpServer({ issuer: auth.issuer, advertise: attacker.url });
  operator = (await auth.userToken({ user: 'operator', audience: hostile.resource })).accessToken;
  // The trap is set: a client following the server's own metadata would exchange at the attacker.
  const document = (await (await fetch(hostile.metadataUrl)).json()) as { authorization_servers: string[] };
  expect(document.authorization_servers).toEqual([attacker.url]);
}, 60_000);

afterAll(async () => {
  await endpoint?.close();
  for (const host of hosts) await host.close();
  await hostile?.close();
  await attacker?.close();
  await auth?.close();
});

describe('a remote server naming its own authorization server', () => {
  it("serve --http: a caller's call exchanges at the operator's issuer, and nothing reaches the server's choice", {
    timeout: 60_000,
  }, async () => {
    const host = await open({
      serve: { auth: { issuer: auth.issuer, scopes: ['mcp:tools'] } },
      mcpServers: { people: entry() },
    });
    endpoint = await serveHttp(host, { host: '127.0.0.1', port: 0 });
    const alice = (await auth.userToken({ user: 'alice', audience: endpoint.url })).accessToken;
    const exchanges = auth.tokenRequests.filter((grant) => grant === TOKEN_EXCHANGE).length;
    const before = hostile.accepted.length;
    const client = new Client({ name: 'caller', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(endpoint.url), {
        requestInit: { headers: { authorization: `Bearer ${alice}` } },
      }),
    );
    try {
      expect(textOf(await client.callTool({ name: 'whoami', arguments: {} }))).toBe('alice');
    } finally {
      await client.close();
    }
    expect(stolen()).toEqual([]);
    expect(auth.tokenRequests.filter((grant) => grant === TOKEN_EXCHANGE).length).toBe(exchanges + 1);
    // explain says where callers' tokens go, and what named the place.
    const report = host.explain().plugins.find((plugin) => plugin.name === 'mcp:people');
    expect(report?.mcp?.credentials).toBe(
      `each caller's token, exchanged at the token endpoint of serve.auth.issuer ${auth.issuer} (its metadata) for one with audience ${hostile.resource}`,
    );
    await expectMintedForServer(before, alice, 'alice');
  });

  it('with a tokenEndpoint in the config, exchanges there only', { timeout: 60_000 }, async () => {
    const host = await open({ mcpServers: { people: entry({ tokenEndpoint: auth.tokenEndpoint }) } });
    const bob = (await auth.userToken({ user: 'bob', audience: 'http://127.0.0.1:1/toolshed' })).accessToken;
    const identity: Identity = { subject: 'bob', issuer: auth.issuer, scopes: [], claims: { sub: 'bob' }, token: bob };
    const before = hostile.accepted.length;
    const outcome = await host.as(identity).call('whoami', {});
    expect(outcome).toMatchObject({ ok: true, text: 'bob' });
    expect(host.explain().plugins.find((plugin) => plugin.name === 'mcp:people')?.mcp?.credentials).toMatch(
      /exchanged at http:\/\/127\.0\.0\.1:\d+\/token \(credentials\.exchange\.tokenEndpoint\)/,
    );
    expect(stolen()).toEqual([]);
    await expectMintedForServer(before, bob, 'bob');
  });

  it('without a tokenEndpoint or serve.auth.issuer, refuses the config and says why; nothing is sent', {
    timeout: 60_000,
  }, async () => {
    const error = await open({ mcpServers: { people: entry() } }).then(
      () => undefined,
      (failure: { code?: string; message?: string; data?: { pointer?: string } }) => failure,
    );
    expect(error).toMatchObject({
      code: 'CONFIG_INVALID',
      data: { pointer: '/mcpServers/people/credentials/exchange/tokenEndpoint' },
    });
    expect(error?.message).toMatch(/credentials\.exchange needs a tokenEndpoint/);
    expect(error?.message).toMatch(/MCP server's own metadata/);
    expect(error?.message).toMatch(/serve\.auth\.issuer/);
    expect(stolen()).toEqual([]);
  });

  it("fails the call, naming why, when the operator's issuer names no usable token endpoint", {
    timeout: 60_000,
  }, async () => {
    // An issuer that does not answer: the call cannot exchange, and falls back to nothing.
    const gone = await startRecordingServer();
    const issuer = gone.url;
    await gone.close();
    const host = await open({ serve: { auth: { issuer } }, mcpServers: { people: entry() } });
    const carol = (await auth.userToken({ user: 'carol', audience: 'http://127.0.0.1:1/toolshed' })).accessToken;
    const before = hostile.accepted.length;
    const outcome = await host
      .as({ subject: 'carol', issuer, scopes: [], claims: { sub: 'carol' }, token: carol })
      .call('whoami', {});
    expect(outcome).toMatchObject({ ok: false, code: 'CREDENTIALS_UNAVAILABLE' });
    expect(!outcome.ok && outcome.message).toMatch(
      /exchanging carol's token for the MCP server people failed: no token endpoint: .*serve\.auth\.issuer/,
    );
    expect(!outcome.ok && outcome.message).not.toContain(carol);
    expect(hostile.accepted.length).toBe(before);
    expect(stolen()).toEqual([]);
  });
});
