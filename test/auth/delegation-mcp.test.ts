/**
 * A remote MCP server used on each caller's behalf (`mcpServers.NAME.credentials`), against the
 * harness's real authorization server and an MCP server protected by it. With `{ exchange }`, the
 * caller's own token (issued for toolshed, not for the server) is exchanged (RFC 8693) for one the
 * server accepts: alice's call reaches it as alice, bob's as bob, concurrently; the exchanged token
 * is reused; no identity, no token, or a refused exchange is CREDENTIALS_UNAVAILABLE without a
 * token in the message. With 'provider', the embedder's provider supplies each caller's token.
 * The server's listing stays the operator's (its static header). Hooks and explain see no token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type CredentialRequest, type Identity, type ToolHost } from 'toolshed';
import {
  EXCHANGE_CLIENT,
  TOKEN_EXCHANGE,
  startAuthServer,
  startProtectedMcpServer,
  type AuthServer,
  type ProtectedMcpServer,
} from '../support/oauth.js';
import { PROJECT } from '../mcp-servers/setup.js';
import { SkewedClock } from '../helpers.js';

/** The audience of the tokens callers present to toolshed: toolshed itself, not the MCP server. */
const TOOLSHED = 'http://127.0.0.1:1/toolshed';

let auth: AuthServer;
let mcp: ProtectedMcpServer;
let host: ToolHost;
/** the host's clock: exchanged tokens are kept by it, so a test moves it on instead of waiting */
const clock = new SkewedClock();
/** each caller's token for toolshed, by subject */
const inbound: Record<string, string> = {};
/** each caller's own token for the MCP server, as the embedder's provider keeps them */
const vault: Record<string, string> = {};
const asked: CredentialRequest[] = [];

const identity = (subject: string, token = inbound[subject]): Identity => ({
  subject,
  issuer: auth.issuer,
  scopes: ['mcp:tools'],
  claims: { sub: subject },
  ...(token ? { token } : {}),
});
/** The first server's tool keeps its name; the later servers' namesakes get their prefixes. */
const PEOPLE = 'whoami';
const exchanges = () => auth.tokenRequests.filter((grant) => grant === TOKEN_EXCHANGE).length;

beforeAll(async () => {
  auth = await startAuthServer();
  mcp = await startProtectedMcpServer({ issuer: auth.issuer });
  for (const user of ['alice', 'bob', 'dave'])
    inbound[user] = (await auth.userToken({ user, audience: TOOLSHED })).accessToken;
  for (const user of ['alice', 'bob'])
    vault[user] = (await auth.userToken({ user, audience: mcp.resource })).accessToken;
  const operator = (await auth.userToken({ user: 'operator', audience: mcp.resource })).accessToken;
  host = await createToolHost({
    clock,
    cwd: PROJECT,
    env: { EXCHANGE_SECRET: EXCHANGE_CLIENT.secret },
    config: {
      builtins: false,
      cache: { enabled: false },
      // The operator's issuer: without a tokenEndpoint, the exchange uses the one its metadata names (RFC 8414).
      serve: { auth: { issuer: auth.issuer } },
      mcpServers: {
        people: {
          url: mcp.url,
          headers: { Authorization: `Bearer ${operator}` },
          credentials: {
            exchange: { clientId: EXCHANGE_CLIENT.id, clientSecretEnv: 'EXCHANGE_SECRET', scopes: ['mcp:tools'] },
          },
        },
        vaulted: { url: mcp.url, headers: { authorization: `Bearer ${operator}` }, credentials: 'provider' },
        shared: { url: mcp.url, headers: { Authorization: `Bearer ${operator}` } },
      },
    },
    credentials: (request) => {
      asked.push(request);
      return vault[request.identity.subject];
    },
  });
}, 120_000);

afterAll(async () => {
  await host?.close();
  await mcp?.close();
  await auth?.close();
});

const text = async (on: ToolHost, tool: string) => {
  const outcome = await on.call(tool, {});
  if (!outcome.ok) throw new Error(`${outcome.code}: ${outcome.message}`);
  return outcome.text;
};

describe('credentials: { exchange }', () => {
  it("lists with the operator's credentials and calls as each caller, with their exchanged token", {
    timeout: 60_000,
  }, async () => {
    expect((await host.definitions({ format: 'mcp' })).map((tool) => tool.name)).toEqual(
      expect.arrayContaining([PEOPLE, 'vaulted_whoami', 'shared_whoami']),
    );
    expect(await text(host.as(identity('alice')), PEOPLE)).toBe('alice');
    expect(await text(host.as(identity('bob')), PEOPLE)).toBe('bob');
    // The callers' own tokens were for toolshed: the server would not have taken them.
    await expect(auth.verify(inbound.alice!, mcp.resource)).rejects.toThrow();
    // An entry with the operator's credentials still calls as the operator.
    expect(await text(host.as(identity('alice')), 'shared_whoami')).toBe('operator');
  });

  it('keeps concurrent callers apart', { timeout: 60_000 }, async () => {
    const users = ['alice', 'bob', 'alice', 'bob', 'alice', 'bob'];
    const answers = await Promise.all(users.map((user) => text(host.as(identity(user)), PEOPLE)));
    expect(answers).toEqual(users);
  });

  it('exchanges a token once and reuses it until shortly before it expires', { timeout: 60_000 }, async () => {
    const dave = host.as(identity('dave'));
    const before = exchanges();
    expect(await text(dave, PEOPLE)).toBe('dave');
    expect(await text(dave, PEOPLE)).toBe('dave');
    expect(exchanges()).toBe(before + 1);
  });

  it('exchanges again once the exchanged token is close to expiry, and never keeps one about to expire', {
    timeout: 60_000,
  }, async () => {
    const frank = host.as(identity('frank', (await auth.userToken({ user: 'frank', audience: TOOLSHED })).accessToken));
    const gina = host.as(identity('gina', (await auth.userToken({ user: 'gina', audience: TOOLSHED })).accessToken));
    const ttl = auth.accessTokenTtlSec;
    try {
      // 36 s tokens are used for 6 s (30 s before expiry), then exchanged again: the host's clock moves on 6.5 s.
      auth.accessTokenTtlSec = 36;
      const before = exchanges();
      expect(await text(frank, PEOPLE)).toBe('frank');
      expect(await text(frank, PEOPLE)).toBe('frank');
      expect(exchanges()).toBe(before + 1);
      clock.advance(6_500);
      expect(await text(frank, PEOPLE)).toBe('frank');
      expect(exchanges()).toBe(before + 2);
      // 20 s tokens are within the margin from the start: each call exchanges.
      auth.accessTokenTtlSec = 20;
      expect(await text(gina, PEOPLE)).toBe('gina');
      expect(await text(gina, PEOPLE)).toBe('gina');
      expect(exchanges()).toBe(before + 4);
    } finally {
      auth.accessTokenTtlSec = ttl;
    }
  });

  it('refuses a call made for no identity, or for one without a token', { timeout: 60_000 }, async () => {
    const anonymous = await host.call(PEOPLE, {});
    expect(anonymous).toMatchObject({ ok: false, code: 'CREDENTIALS_UNAVAILABLE' });
    expect(!anonymous.ok && anonymous.message).toMatch(/made for no identity/);
    const tokenless = await host.as(identity('carol', '')).call(PEOPLE, {});
    expect(tokenless).toMatchObject({ ok: false, code: 'CREDENTIALS_UNAVAILABLE' });
    expect(!tokenless.ok && tokenless.message).toMatch(/carries no token to exchange/);
  });

  it('refuses a call whose exchange the authorization server refuses, naming no token', {
    timeout: 60_000,
  }, async () => {
    const erin = (await auth.userToken({ user: 'erin', audience: TOOLSHED })).accessToken;
    const before = mcp.calls.length;
    auth.refuseExchange();
    try {
      const outcome = await host.as(identity('erin', erin)).call(PEOPLE, {});
      expect(outcome).toMatchObject({ ok: false, code: 'CREDENTIALS_UNAVAILABLE' });
      const message = outcome.ok ? '' : outcome.message;
      expect(message).toBe(
        "whoami could not run: exchanging erin's token for the MCP server people failed: the token endpoint refused it (invalid_grant)",
      );
      expect(message).not.toContain(erin);
      expect(message).not.toContain(EXCHANGE_CLIENT.secret);
    } finally {
      auth.refuseExchange(false);
    }
    expect(mcp.calls.length).toBe(before);
  });
});

describe("credentials: 'provider'", () => {
  it("calls with the token the embedder's provider gives for each caller", { timeout: 60_000 }, async () => {
    asked.length = 0;
    expect(await text(host.as(identity('alice')), 'vaulted_whoami')).toBe('alice');
    expect(await text(host.as(identity('bob')), 'vaulted_whoami')).toBe('bob');
    expect(asked.map(({ kind, name, plugin, identity: { subject } }) => ({ kind, name, plugin, subject }))).toEqual([
      { kind: 'token', name: 'vaulted', plugin: 'mcp:vaulted', subject: 'alice' },
      { kind: 'token', name: 'vaulted', plugin: 'mcp:vaulted', subject: 'bob' },
    ]);
  });

  it('refuses a caller the provider has no token for, and a call made for no identity', {
    timeout: 60_000,
  }, async () => {
    const outcome = await host.as(identity('dave')).call('vaulted_whoami', {});
    expect(outcome).toMatchObject({ ok: false, code: 'CREDENTIALS_UNAVAILABLE' });
    expect(!outcome.ok && outcome.message).toBe(
      'vaulted_whoami could not run: the credentials provider gave no token for the MCP server vaulted (asked for dave)',
    );
    expect(await host.call('vaulted_whoami', {})).toMatchObject({ ok: false, code: 'CREDENTIALS_UNAVAILABLE' });
  });

  it('refuses a token the server does not accept as CREDENTIALS_UNAVAILABLE', { timeout: 60_000 }, async () => {
    vault.mallory = inbound.alice!;
    try {
      const outcome = await host.as(identity('mallory')).call('vaulted_whoami', {});
      expect(outcome).toMatchObject({ ok: false, code: 'CREDENTIALS_UNAVAILABLE' });
      expect(!outcome.ok && outcome.message).toMatch(/the MCP server vaulted refused mallory's credentials/);
      expect(!outcome.ok && outcome.message).not.toContain(inbound.alice);
    } finally {
      delete vault.mallory;
    }
  });
});

describe('tokens stay in the host', () => {
  it('hooks and explain never see a caller token', { timeout: 60_000 }, async () => {
    const seen: unknown[] = [];
    const off = host.use({
      beforeCall: (call) => void seen.push(call),
      afterCall: (call, outcome) => void seen.push(call, outcome),
    });
    try {
      expect(await text(host.as(identity('alice')), PEOPLE)).toBe('alice');
      expect(await text(host.as(identity('bob')), 'vaulted_whoami')).toBe('bob');
    } finally {
      off();
    }
    const visible = JSON.stringify([seen, host.explain(), await host.refresh()]);
    expect(visible).toContain('alice');
    for (const token of [inbound.alice!, inbound.bob!, vault.alice!, vault.bob!]) expect(visible).not.toContain(token);
  });
});
