/**
 * Credentials written into an MCP server's URL (`?api_key=…`, `user:pass@`) stay out of what the
 * operator and the logs see: the console API (overview, tool detail), `toolshed explain` (text;
 * `--json` is the host's report) and the host's log lines and a failed call's message. The server itself still
 * gets its key: a real MCP server on loopback that answers only with it is connected.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod/v4';
import type { ToolHost } from 'toolshed';
import { serveConsole, type ConsoleEndpoint } from '#internal/core/console/listener.js';
import { BIN, server, serversHost, until } from '../mcp-servers/setup.js';
import { freePort } from '../support/fleet.js';
import { suiteHome, tempDir } from '../helpers.js';

const KEY = 'url-key-3f9c1d';
const PASSWORD = 'url-pass-7a2e44';
let keyed: { url: string; close(): Promise<void> };
let host: ToolHost;
let endpoint: ConsoleEndpoint;
const logs: string[] = [];
const work = tempDir();

/** A real MCP server on loopback with one tool, `ping`, that answers only requests carrying `?api_key=KEY`. */
async function startKeyedServer(): Promise<{ url: string; close(): Promise<void> }> {
  const port = await freePort();
  const handler = createMcpHandler(
    () => {
      const mcp = new McpServer({ name: 'keyed', version: '1.0.0' });
      mcp.registerTool('ping', { description: 'Answers pong.', inputSchema: z.object({}) }, async () => ({
        content: [{ type: 'text', text: 'pong' }],
      }));
      return mcp;
    },
    { legacy: 'stateless' },
  );
  const serve = toNodeHandler(handler);
  const listener = http.createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://x').searchParams.get('api_key') !== KEY) return void res.writeHead(401).end();
    void serve(req, res);
  });
  await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await handler.close();
      await new Promise<void>((resolve) => {
        listener.close(() => resolve());
        listener.closeAllConnections();
      });
    },
  };
}

/**
 * The servers: one keyed by its query, one with user info (fetch refuses such a URL: its error must not show it
 * either).
 */
const servers = () => ({
  keyed: { url: `${keyed.url}/mcp?api_key=${KEY}&region=eu` },
  signed: { url: `http://alice:${PASSWORD}@127.0.0.1:9/mcp?token=${KEY}` },
});

const expectNoSecret = (text: string) => {
  expect(text).not.toContain(KEY);
  expect(text).not.toContain(PASSWORD);
};

beforeAll(async () => {
  keyed = await startKeyedServer();
  host = await serversHost(servers());
  host.on('log', (entry) => void logs.push(JSON.stringify(entry)));
  await until(
    host,
    (report) => server(report, 'keyed').state === 'connected' && server(report, 'signed').reason !== undefined,
    'keyed connected, signed refused',
  );
  endpoint = await serveConsole(host, { host: '127.0.0.1', port: 0 });
}, 60_000);

afterAll(async () => {
  await endpoint?.close();
  await host?.close();
  await keyed?.close();
  work.cleanup();
});

describe('secrets in an MCP server URL', () => {
  it('reach the server: its key goes with every request', async () => {
    expect(await host.dispatch('ping', {})).toBe('pong');
  });

  it('are hidden from the console API', { timeout: 30_000 }, async () => {
    const api = `${endpoint.url}api/`;
    const overview = await (await fetch(`${api}overview`)).text();
    const detail = await (await fetch(`${api}tools/ping`)).text();
    for (const text of [overview, detail]) expectNoSecret(text);
    expect(overview).toContain(`${keyed.url}/mcp?api_key=***&region=eu`);
    expect(overview).toContain('http://***@127.0.0.1:9/mcp?token=***');
  });

  it('are hidden from explain, its reasons and the logs', { timeout: 30_000 }, async () => {
    const report = host.explain();
    expect(server(report, 'keyed').target).toBe(`${keyed.url}/mcp?api_key=***&region=eu`);
    expect(server(report, 'signed')).toMatchObject({ target: 'http://***@127.0.0.1:9/mcp?token=***' });
    expectNoSecret(JSON.stringify(report));
    // The signed server's reconnections are logged, each with fetch's refusal naming the URL.
    await expect.poll(() => logs.some((line) => line.includes('mcp:signed')), { timeout: 20_000 }).toBe(true);
    expectNoSecret(logs.join('\n'));
  });

  it('are hidden from a failed call', async () => {
    const outcome = await host.call('signed_ping', {});
    expect(outcome.ok).toBe(false);
    expectNoSecret(JSON.stringify(outcome));
  });

  it('are hidden from toolshed explain and its stderr', { timeout: 60_000 }, async () => {
    writeFileSync(path.join(work.dir, 'package.json'), '{"name":"url-secrets","private":true}');
    const config = path.join(work.dir, 'toolshed.config.json');
    writeFileSync(config, JSON.stringify({ builtins: false, cache: { enabled: false }, mcpServers: servers() }));
    // Not spawnSync: the keyed server runs in this process, and a blocked event loop would leave
    // the child's connection to it unanswered until the child gave up on it.
    const text = await new Promise<{ status: unknown; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [BIN, 'explain', '--config', config],
        { cwd: work.dir, env: { ...suiteHome(), PATH: process.env.PATH }, encoding: 'utf8', timeout: 60_000 },
        (error, stdout, stderr) => resolve({ status: error ? (error.code ?? error.signal) : 0, stdout, stderr }),
      );
    });
    expect(text.status).toBe(0);
    expectNoSecret(text.stdout + text.stderr);
    expect(text.stdout).toContain(`url: ${keyed.url}/mcp?api_key=***&region=eu`);
    expect(text.stdout).toContain('url: http://***@127.0.0.1:9/mcp?token=***');
  });
});
