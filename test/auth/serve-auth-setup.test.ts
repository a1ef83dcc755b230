/**
 * `serve.auth` around the token checks: a configuration it refuses before anything listens (an
 * issuer on plain http elsewhere than loopback, a static token besides OAuth), a server that
 * fails closed when it cannot get the issuer's keys, and an identity its access rules refuse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { serveHttp } from '#internal/core/mcp-server/http/http.js';
import type { HttpEndpoint } from '#internal/core/mcp-server/public-types.js';
import { mcpConfig, mcpProject } from '../mcp/setup.js';
import { freePort } from '../support/fleet.js';
import { startAuthServer, type AuthServer } from '../support/oauth.js';
import { INITIALIZE, post } from './raw-mcp.js';

const project = mcpProject(60_000);
const open: Array<{ close(): Promise<void> }> = [];
let auth: AuthServer;

beforeAll(async () => {
  auth = await startAuthServer();
}, 60_000);

afterAll(async () => {
  for (const item of open.reverse()) await item.close();
  await auth?.close();
  project.cleanup();
});

/** A host with no plugins whose config says `serve`. */
async function hostWith(serve: Record<string, unknown>): Promise<ToolHost> {
  const host = await createToolHost({ cwd: project.dir, config: { builtins: false, serve }, env: {} });
  open.push(host);
  return host;
}

/** A JWT in form only (its signature is not checked before its keys are fetched). */
const UNSIGNED = `${[{ alg: 'RS256', kid: 'k' }, { sub: 'alice' }].map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.')}.c2ln`;

describe('serve.auth: setup', () => {
  it('refuses an issuer on plain http elsewhere than loopback, before listening', { timeout: 60_000 }, async () => {
    const host = await hostWith({ auth: { issuer: 'http://login.example.com' } });
    await expect(serveHttp(host, { host: '127.0.0.1', port: 0 })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('serve.auth.issuer'),
    });
  });

  it('refuses a static bearer token besides serve.auth (a usage error)', { timeout: 60_000 }, async () => {
    const host = await hostWith({ auth: { issuer: auth.issuer } });
    await expect(serveHttp(host, { host: '127.0.0.1', port: 0, bearerToken: 'static' })).rejects.toMatchObject({
      code: 'USAGE',
    });
  });

  it('answers 500 when the keys cannot be fetched, and lets nothing through', { timeout: 60_000 }, async () => {
    const host = await hostWith({ auth: { issuer: `http://127.0.0.1:${await freePort()}` } });
    const errors: unknown[] = [];
    const endpoint = await serveHttp(host, { host: '127.0.0.1', port: 0, onError: (error) => errors.push(error) });
    open.push(endpoint);
    const response = await fetch(endpoint.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${UNSIGNED}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({
      error: 'server_error',
      error_description: expect.stringContaining('could not read the metadata of the authorization server'),
    });
    expect(errors).toHaveLength(1);
  });
});

describe('serve.auth: access', () => {
  let endpoint: HttpEndpoint;

  beforeAll(async () => {
    // The access rules name who may use the host: mallory is not among them.
    const host = await createToolHost({
      cwd: project.dir,
      config: {
        ...mcpConfig(60_000),
        serve: { auth: { issuer: auth.issuer } },
        access: [{ name: 'staff', when: { subject: ['alice', 'bob'] } }],
      },
      env: { PATH: process.env.PATH },
    });
    open.push(host);
    endpoint = await serveHttp(host, { host: '127.0.0.1', port: 0 });
    open.push(endpoint);
  }, 60_000);

  it("answers 403 with ACCESS_DENIED's message to an identity no access rule admits", { timeout: 60_000 }, async () => {
    const { accessToken } = await auth.userToken({ user: 'mallory', audience: endpoint.url });
    const refused = await post(endpoint.url, INITIALIZE, { token: accessToken });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'Forbidden: mallory may not use this host: no access rule matches it',
    );
  });
});
