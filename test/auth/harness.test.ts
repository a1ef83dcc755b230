/**
 * The OAuth harness itself (test/support/oauth.ts), against the real oidc-provider and the SDK:
 * logins give JWTs for the resource asked for with the user's claims, the protected MCP server
 * admits only those and says where to log in otherwise, refreshes and exchanges work and can be
 * refused. The identity tests rest on each of these.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  EXCHANGE_CLIENT,
  TOKEN_EXCHANGE,
  startAuthServer,
  startProtectedMcpServer,
  type AuthServer,
  type ProtectedMcpServer,
} from '../support/oauth.js';
import { SkewedClock } from '../helpers.js';

let auth: AuthServer;
let mcp: ProtectedMcpServer;
/** the protected server's clock: a test moves it past a token's exp instead of waiting */
const clock = new SkewedClock();

beforeAll(async () => {
  auth = await startAuthServer({ accounts: { alice: { groups: ['eng'] } } });
  mcp = await startProtectedMcpServer({ issuer: auth.issuer, clock });
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await auth?.close();
});

const tokenRequest = (body: Record<string, string>, basic?: string) =>
  fetch(auth.tokenEndpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(basic ? { authorization: `Basic ${Buffer.from(basic).toString('base64')}` } : {}),
    },
    body: new URLSearchParams(body).toString(),
  });

async function whoami(token: string): Promise<string> {
  const client = new Client({ name: 'harness-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcp.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    return (result.content as Array<{ text: string }>)[0]!.text;
  } finally {
    await client.close();
  }
}

describe('the OAuth harness', () => {
  it("logs a user in and issues a JWT for the resource, with the user's claims", { timeout: 60_000 }, async () => {
    const tokens = await auth.userToken({ user: 'alice', audience: mcp.resource });
    const claims = await auth.verify(tokens.accessToken, mcp.resource);
    expect(claims).toMatchObject({ sub: 'alice', iss: auth.issuer, aud: mcp.resource, groups: ['eng'] });
    expect(String(claims.scope)).toContain('mcp:tools');
    expect(tokens.refreshToken).toBeTruthy();
  });

  it('protects the MCP server: 401 naming its metadata, which names the issuer; a token gets in', {
    timeout: 60_000,
  }, async () => {
    const refused = await fetch(mcp.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="${mcp.metadataUrl}"`);
    const metadata = (await (await fetch(mcp.metadataUrl)).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    expect(metadata.resource).toBe(mcp.resource);
    expect(metadata.authorization_servers.map((url) => url.replace(/\/$/, ''))).toEqual([auth.issuer]);
    const { accessToken } = await auth.userToken({ user: 'bob', audience: mcp.resource });
    expect(await whoami(accessToken)).toBe('bob');
    const forElsewhere = await auth.userToken({ user: 'bob', audience: 'http://127.0.0.1:1/other' });
    await expect(whoami(forElsewhere.accessToken)).rejects.toThrow();
  });

  it('refreshes, and refuses refreshes when told to', { timeout: 60_000 }, async () => {
    const { refreshToken } = await auth.userToken({ user: 'alice', audience: mcp.resource });
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: refreshToken!,
      client_id: 'test-client',
      resource: mcp.resource,
    });
    const body = (await refreshed.json()) as { access_token?: string; refresh_token?: string };
    expect(refreshed.status).toBe(200);
    expect(await whoami(body.access_token!)).toBe('alice');
    auth.refuseRefresh();
    try {
      const refused = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: body.refresh_token!,
        client_id: 'test-client',
        resource: mcp.resource,
      });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
    } finally {
      auth.refuseRefresh(false);
    }
    expect(auth.tokenRequests).toContain('refresh_token');
  });

  it('exchanges a user token for one for another audience (RFC 8693), and refuses when told to', {
    timeout: 60_000,
  }, async () => {
    const { accessToken } = await auth.userToken({ user: 'carol', audience: 'http://127.0.0.1:1/toolshed' });
    const exchange = () =>
      tokenRequest(
        {
          grant_type: TOKEN_EXCHANGE,
          subject_token: accessToken,
          subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          resource: mcp.resource,
          scope: 'mcp:tools',
        },
        `${EXCHANGE_CLIENT.id}:${EXCHANGE_CLIENT.secret}`,
      );
    const response = await exchange();
    const body = (await response.json()) as { access_token: string; issued_token_type: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(await whoami(body.access_token)).toBe('carol');
    auth.refuseExchange();
    try {
      expect((await exchange()).status).toBe(400);
    } finally {
      auth.refuseExchange(false);
    }
  });

  it('expires access tokens after their lifetime', { timeout: 60_000 }, async () => {
    // A lifetime no loaded machine outlasts between minting and the first call; the server's clock then moves past it.
    const { accessToken } = await auth.userToken({ user: 'alice', audience: mcp.resource, ttlSec: 60 });
    expect(await whoami(accessToken)).toBe('alice');
    clock.advance(61_000);
    await expect(whoami(accessToken)).rejects.toThrow();
  });

  it('registers clients dynamically (RFC 7591)', { timeout: 60_000 }, async () => {
    const response = await fetch(`${auth.issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: ['http://127.0.0.1:5555/callback'],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        application_type: 'native',
      }),
    });
    expect(response.status, await response.clone().text()).toBe(201);
  });
});
