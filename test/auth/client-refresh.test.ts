/**
 * The life of a stored OAuth login in a host, against a real authorization server (oidc-provider)
 * and an MCP server protected by it: an expired access token is refreshed before the call (the
 * server never sees the expired one), tokens provisioned with `toolshed auth NAME --import` work
 * without a browser (and refresh with the client they were issued to), a refused refresh drops the
 * tokens and hides the server with the reason naming `toolshed auth NAME`, and the command refuses
 * a name that is not a URL entry of the config (exit 2) and fails a login it cannot complete with
 * AUTH_FAILED naming the step (exit 1).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { oauthFile } from '#internal/core/mcp-client/oauth-state.js';
import { SkewedClock, tempDir } from '../helpers.js';
import {
  startAuthServer,
  startProtectedMcpServer,
  type AuthServer,
  type ProtectedMcpServer,
} from '../support/oauth.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
const home = tempDir('toolshed-oauth-home-');
const work = tempDir('toolshed-oauth-work-');
const stateHome = path.join(home.dir, 'state');
const saved = { XDG_STATE_HOME: process.env.XDG_STATE_HOME, HOME: process.env.HOME };
const env = {
  PATH: process.env.PATH ?? '',
  HOME: home.dir,
  XDG_STATE_HOME: stateHome,
  XDG_CACHE_HOME: path.join(home.dir, 'cache'),
};

let authServer: AuthServer;
let mcp: ProtectedMcpServer;
let host: ToolHost;

/** Runs `toolshed ARGS` as a child process (the servers it talks to run in this process); `onUrl` plays the browser. */
function toolshed(
  args: string[],
  options: { input?: string; onUrl?: (url: string) => Promise<unknown> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: work.dir, env });
  let stdout = '';
  let stderr = '';
  let browsed = false;
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    const url = stderr.split('\n').find((line) => /^https?:\/\//.test(line));
    if (url && options.onUrl && !browsed) {
      browsed = true;
      void options.onUrl(url).then((redirect) => fetch(redirect as URL));
    }
  });
  child.stdin.end(options.input ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** `toolshed auth NAME` with alice at the browser. */
async function login(name: string): Promise<void> {
  const result = await toolshed(['auth', name, '--no-browser'], { onUrl: (url) => authServer.login(url, 'alice') });
  expect(result.code, result.stderr).toBe(0);
}

/** The tokens kept for server `name`. */
function kept(name: string): { access_token: string; refresh_token?: string; expires_at?: number } | undefined {
  return JSON.parse(readFileSync(oauthFile(path.join(stateHome, 'toolshed'), name, mcp.url), 'utf8')).tokens;
}

/**
 * The host's clock, moved past a token's expiry instead of waiting for it: the host then holds an
 * expired token by its own reckoning (the authorization server issues new ones in real time).
 */
const clock = new SkewedClock();

function afterExpiry(name: string): void {
  clock.advance(Math.max(0, kept(name)!.expires_at! - clock.now()) + 200);
}

const connection = async (name: string) => (await host.refresh()).plugins.find((p) => p.name === `mcp:${name}`)?.mcp;

beforeAll(async () => {
  process.env.XDG_STATE_HOME = stateHome;
  process.env.HOME = home.dir;
  // Every access token lives 3 s: each test sees one expire.
  authServer = await startAuthServer({ accessTokenTtlSec: 3 });
  mcp = await startProtectedMcpServer({ issuer: authServer.issuer });
  const config = {
    builtins: false,
    cache: { enabled: false },
    mcpServers: {
      // Probed rarely: the refresh that happens is the one before a call.
      remote: { url: mcp.url, probeIntervalMs: 60_000 },
      imported: { url: mcp.url, prefix: 'imported_', probeIntervalMs: 60_000 },
      revoked: { url: mcp.url, prefix: 'revoked_', probeIntervalMs: 200 },
      local: { command: process.execPath, args: ['-e', ''], enabled: false },
      // Nothing listens on port 9 of loopback: its login fails at the first step.
      nowhere: { url: 'http://127.0.0.1:9/mcp', enabled: false },
    },
  };
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"oauth-refresh","private":true}');
  writeFileSync(path.join(work.dir, '.toolshedrc.json'), JSON.stringify(config));
  await login('remote');
  await login('revoked');
  const bob = await authServer.userToken({ user: 'bob', audience: mcp.resource });
  const imported = await toolshed(['auth', 'imported', '--import', '-'], {
    input: JSON.stringify({
      access_token: bob.accessToken,
      refresh_token: bob.refreshToken,
      expires_in: bob.expiresIn,
      scope: bob.scope,
      client_id: 'test-client',
    }),
  });
  expect(imported.code, imported.stderr).toBe(0);
  expect(imported.stdout).toMatch(/^stored imported tokens for imported: authorized until /);
  host = await createToolHost({ cwd: work.dir, config, clock });
}, 120_000);

afterAll(async () => {
  await host?.close();
  await mcp?.close();
  await authServer?.close();
  process.env.XDG_STATE_HOME = saved.XDG_STATE_HOME;
  process.env.HOME = saved.HOME;
  home.cleanup();
  work.cleanup();
});

describe('stored OAuth tokens in a host', () => {
  it('an expired access token is refreshed before the call, which the server never refuses', {
    timeout: 60_000,
  }, async () => {
    expect(await host.dispatch('whoami', '{}')).toBe('alice');
    const before = kept('remote')!;
    afterExpiry('remote');
    const refused = mcp.refused;
    expect(await host.dispatch('whoami', '{}')).toBe('alice');
    expect(mcp.refused).toBe(refused);
    const after = kept('remote')!;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.expires_at).toBeGreaterThan(clock.now());
    expect(authServer.tokenRequests).toContain('refresh_token');
  });

  it('tokens provisioned with --import work without a browser, and refresh with their client', {
    timeout: 60_000,
  }, async () => {
    expect(await host.dispatch('imported_whoami', '{}')).toBe('bob');
    const before = kept('imported')!;
    afterExpiry('imported');
    expect(await host.dispatch('imported_whoami', '{}')).toBe('bob');
    expect(kept('imported')!.access_token).not.toBe(before.access_token);
  });

  it('a refused refresh drops the tokens and hides the server with the reason', { timeout: 60_000 }, async () => {
    expect(await host.dispatch('revoked_whoami', '{}')).toBe('alice');
    authServer.refuseRefresh();
    try {
      afterExpiry('revoked');
      await expect
        .poll(() => connection('revoked'), { timeout: 20_000 })
        .toMatchObject({
          state: 'needs authorization',
          reason: 'authorization expired or was revoked: run toolshed auth revoked',
          auth: { state: 'needs authorization' },
        });
      expect(kept('revoked')).toBeUndefined();
      const names = (await host.definitions({ format: 'mcp' })).map((tool) => tool.name);
      expect(names).not.toContain('revoked_whoami');
      expect(names).toContain('whoami');
      const refused = JSON.parse(await host.dispatch('revoked_whoami', '{}'));
      expect(refused).toMatchObject({ code: 'TOOL_NOT_EXPOSED' });
      expect(refused.error).toContain('authorization expired or was revoked: run toolshed auth revoked');
    } finally {
      authServer.refuseRefresh(false);
    }
  });
});

describe('toolshed auth NAME usage', () => {
  it('refuses an unknown name and a stdio entry with exit 2', { timeout: 60_000 }, async () => {
    const unknown = await toolshed(['auth', 'remot']);
    expect(unknown).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("no MCP server named 'remot' in the config. Did you mean 'remote'?"),
    });
    const stdio = await toolshed(['auth', 'local']);
    expect(stdio).toMatchObject({ code: 2, stderr: expect.stringContaining('local is a stdio server') });
  });

  it('a login that cannot complete exits 1 with AUTH_FAILED naming the step', { timeout: 60_000 }, async () => {
    const failed = await toolshed(['auth', 'nowhere', '--no-browser']);
    expect(failed).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('toolshed: AUTH_FAILED: nowhere: discovering the authorization server: '),
    });
  });

  it('--logout forgets the login; --status then says so', { timeout: 60_000 }, async () => {
    expect(await toolshed(['auth', 'imported', '--logout'])).toMatchObject({
      code: 0,
      stdout: 'forgot the OAuth login of imported\n',
    });
    expect(await toolshed(['auth', 'imported', '--status'])).toMatchObject({
      code: 0,
      stdout: 'imported: not authorized (run toolshed auth imported)\n',
    });
  });
});
