/**
 * toolshed as the OAuth client of a remote MCP server, against a real authorization server
 * (oidc-provider) and an MCP server protected by it: before a login the server's tools are hidden
 * with the reason naming `toolshed auth NAME`; `toolshed auth NAME`, a real child process, prints
 * the authorization URL, takes the browser's redirect on its loopback listener and stores the
 * tokens 0600 in a 0700 folder of the user's state folder (never the workspace); the host that
 * was waiting comes back by itself and calls the server as the user who logged in.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { ManualClock, tempDir } from '../helpers.js';
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
/** the host's clock: its looks at the token file wait on it, so a test moves it instead of waiting */
const clock = new ManualClock(Date.now());

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * Runs `toolshed ARGS` as a child process (never spawnSync: the servers it talks to run in this
 * process); `onUrl` plays the browser with the authorization URL it prints.
 */
function toolshed(
  args: string[],
  onUrl?: (url: string) => Promise<void>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: work.dir, env });
  let stdout = '';
  let stderr = '';
  let browsed: Promise<void> | undefined;
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    const url = stderr.split('\n').find((line) => /^https?:\/\//.test(line));
    if (url && onUrl && !browsed) browsed = onUrl(url);
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

beforeAll(async () => {
  // The host of this file reads its tokens from the user's state folder: a temp one, never the real user's.
  process.env.XDG_STATE_HOME = stateHome;
  process.env.HOME = home.dir;
  authServer = await startAuthServer();
  mcp = await startProtectedMcpServer({ issuer: authServer.issuer });
  const config = {
    builtins: false,
    cache: { enabled: false },
    mcpServers: { remote: { url: mcp.url, probeIntervalMs: 200 } },
  };
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"oauth-client","private":true}');
  writeFileSync(path.join(work.dir, '.toolshedrc.json'), JSON.stringify(config));
  host = await createToolHost({ cwd: work.dir, config, clock });
}, 60_000);

afterAll(async () => {
  await host?.close();
  await mcp?.close();
  await authServer?.close();
  process.env.XDG_STATE_HOME = saved.XDG_STATE_HOME;
  process.env.HOME = saved.HOME;
  home.cleanup();
  work.cleanup();
});

describe('an MCP server that needs OAuth', () => {
  it('is hidden before any login, with the reason naming toolshed auth NAME, and no browser or retry loop', async () => {
    const report = await host.refresh();
    const plugin = report.plugins.find((p) => p.name === 'mcp:remote');
    expect(plugin?.mcp).toMatchObject({
      state: 'needs authorization',
      reason: 'needs authorization: run toolshed auth remote',
      auth: { state: 'needs authorization' },
    });
    // Waiting for a login is a look at the token file per probe interval, not a request to the server.
    const refused = mcp.refused;
    // Five probe intervals of the host's clock: five looks at the token file, no request.
    await clock.advanceAsync(1_000);
    expect(mcp.refused).toBe(refused);
    expect(authServer.tokenRequests).toEqual([]);
  });

  it('toolshed auth NAME logs in through the browser step (refusing a redirect with another state) and stores the tokens privately', {
    timeout: 60_000,
  }, async () => {
    const result = await toolshed(['auth', 'remote', '--no-browser'], async (url) => {
      const redirect = await authServer.login(url, 'alice');
      // A redirect with another state (another tab, a forged link) is refused, and the login goes on waiting.
      const forged = new URL(redirect);
      forged.searchParams.set('state', 'forged');
      expect((await fetch(forged)).status).toBe(400);
      // What the browser does with the redirect: request it, on the command's loopback listener.
      const page = await fetch(redirect);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('You can close this tab');
    });
    expect(result.stderr).toContain('toolshed: to authorize remote, open this URL in a browser');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^remote: authorized until \S+, refreshed when it expires; scopes: .*mcp:tools/m);
    const [file, ...others] = files(stateHome).filter((f) => f.includes(`${path.sep}mcp-oauth${path.sep}`));
    expect(others).toEqual([]);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file!)).mode & 0o777).toBe(0o700);
    const record = JSON.parse(readFileSync(file!, 'utf8'));
    expect(record).toMatchObject({
      server: 'remote',
      url: mcp.url,
      tokens: { access_token: expect.any(String), refresh_token: expect.any(String) },
      client: { client_id: expect.any(String) },
    });
    expect((await authServer.verify(record.tokens.access_token, mcp.resource)).sub).toBe('alice');
    // Nothing of the login is in the workspace; the command printed no token.
    for (const f of files(work.dir)) expect(readFileSync(f, 'utf8')).not.toContain(record.tokens.access_token);
    expect(result.stdout + result.stderr).not.toContain(record.tokens.access_token);
    expect(result.stdout + result.stderr).not.toContain(record.tokens.refresh_token);
  });

  it('the waiting host comes back by itself and calls the server as the user who logged in', {
    timeout: 60_000,
  }, async () => {
    // Each look moves the host's clock one probe interval: the next look at the token file is due.
    await expect
      .poll(
        async () => {
          await clock.advanceAsync(200);
          return (await host.definitions({ format: 'mcp' })).map((tool) => tool.name);
        },
        { timeout: 20_000 },
      )
      .toContain('whoami');
    expect(await host.dispatch('whoami', '{}')).toBe('alice');
    expect(mcp.calls.at(-1)).toEqual({ tool: 'whoami', subject: 'alice' });
    const plugin = (await host.refresh()).plugins.find((p) => p.name === 'mcp:remote');
    expect(plugin?.mcp).toMatchObject({ state: 'connected', auth: { state: 'authorized', refreshable: true } });
    expect(JSON.stringify(plugin)).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
  });

  it('a new host lists and calls it; explain and --status show the login, never a token', {
    timeout: 60_000,
  }, async () => {
    const list = await toolshed(['list', '--format', 'names']);
    expect(list.stdout.split('\n'), list.stderr).toContain('whoami');
    expect(await toolshed(['call', 'whoami'])).toMatchObject({ code: 0, stdout: 'alice\n' });
    const explain = await toolshed(['explain', 'whoami']);
    expect(explain.stdout).toMatch(/oauth:\s+authorized until \S+ \(refreshed when it expires\), scopes mcp:tools/);
    const status = await toolshed(['auth', 'remote', '--status']);
    expect(status).toMatchObject({ code: 0, stdout: expect.stringMatching(/^remote: authorized until /) });
    for (const output of [explain.stdout, status.stdout, list.stderr])
      expect(output).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
  });
});
