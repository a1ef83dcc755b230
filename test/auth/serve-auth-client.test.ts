/**
 * `serve.auth` from the client's side, end to end: an MCP client that knows nothing but
 * toolshed's URL does the whole OAuth dance itself (401 → protected resource metadata →
 * authorization server metadata → dynamic registration → authorization code with PKCE, the
 * browser step driven by the harness → token for toolshed's URL) and lists tools; and the
 * packaged CLI (`bin/toolshed.js serve --http`) with `serve.auth` in its config file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { serveHttp } from '#internal/core/mcp-server/http/http.js';
import type { HttpEndpoint } from '#internal/core/mcp-server/public-types.js';
import { BIN, mcpConfig, mcpProject } from '../mcp/setup.js';
import { suiteHome } from '../helpers.js';
import { startAuthServer, type AuthServer } from '../support/oauth.js';

const project = mcpProject(60_000);
let auth: AuthServer;
let host: ToolHost;
let endpoint: HttpEndpoint;
const children: ChildProcess[] = [];

beforeAll(async () => {
  auth = await startAuthServer();
  host = await createToolHost({
    cwd: project.dir,
    config: { ...mcpConfig(60_000), serve: { auth: { issuer: auth.issuer, scopes: ['mcp:tools'] } } },
    env: { PATH: process.env.PATH },
  });
  endpoint = await serveHttp(host, { host: '127.0.0.1', port: 0 });
}, 60_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await endpoint?.close();
  await host?.close();
  await auth?.close();
  project.cleanup();
});

/** Where the authorization server sends the browser back (never listened on: the test reads the URL). */
const REDIRECT = 'http://127.0.0.1:9/callback';

/** An MCP client's OAuth state, in memory; its browser is the harness's `login`, as `user`. */
class BrowserlessProvider implements OAuthClientProvider {
  /** where the browser ended up after logging in: the redirect with the code */
  redirected: URL | undefined;
  private client: StoredOAuthClientInformation | undefined;
  private saved: StoredOAuthTokens | undefined;
  private verifier = '';
  private discovered: OAuthDiscoveryState | undefined;

  constructor(private readonly user: string) {}

  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'serve-auth test client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    } as OAuthClientMetadata;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.redirected = await auth.login(url.href, this.user);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovered = state;
  }
  discoveryState() {
    return this.discovered;
  }
}

describe('serve.auth with a real MCP client', () => {
  it('lets a client that starts from the URL alone discover where to log in, log in, and list tools', {
    timeout: 60_000,
  }, async () => {
    const provider = new BrowserlessProvider('dana');
    const first = new Client({ name: 'oauth-client', version: '1.0.0' });
    await expect(
      first.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { authProvider: provider })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.redirected?.searchParams.get('code')).toBeTruthy();
    const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), { authProvider: provider });
    await transport.finishAuth(provider.redirected!.searchParams);
    const client = new Client({ name: 'oauth-client', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
    } finally {
      await client.close();
    }
    // The token it got is dana's, for toolshed's URL, with the scope toolshed asks for.
    const claims = await auth.verify(provider.tokens()!.access_token, endpoint.url);
    expect(claims).toMatchObject({ sub: 'dana', aud: endpoint.url });
    expect(String(claims.scope).split(' ')).toContain('mcp:tools');
  });
});

describe('serve.auth in the packaged CLI', () => {
  it('serves with OAuth from the config file: 401 without a token, tools with one', { timeout: 60_000 }, async () => {
    writeFileSync(project.config, JSON.stringify({ ...mcpConfig(60_000), serve: { auth: { issuer: auth.issuer } } }));
    const child = spawn(process.execPath, [BIN, 'serve', '--config', project.config, '--http', '127.0.0.1:0'], {
      cwd: project.dir,
      env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.once('exit', () => reject(new Error(`serve exited: ${stderr}`)));
    });
    expect(stderr).toContain(`(OAuth: access tokens from ${auth.issuer} required)`);
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('resource_metadata="');
    const { accessToken } = await auth.userToken({ user: 'erin', audience: url });
    const client = new Client({ name: 'cli-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
    } finally {
      await client.close();
    }
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // The token never reaches the log.
    expect(stderr).not.toContain(accessToken);
  });
});
