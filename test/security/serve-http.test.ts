/**
 * Who may reach `toolshed serve --http`: a request whose Origin is present
 * and not allowed gets 403 (loopback origins and --allow-origin ones pass);
 * malformed JSON gets JSON-RPC -32700; sessions expire when idle
 * (serve.sessionIdleMs), are capped (serve.maxSessions: the idlest makes room) and share one
 * listener on the host, so abandoned or many clients leave nothing behind;
 * --token-env requires a bearer token and lets a non-loopback bind start.
 * Real listening servers, real requests, the real CLI.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { serveHttp } from '#internal/core/mcp-server/http/http.js';
import type { HttpEndpoint, HttpServeOptions } from '#internal/core/mcp-server/public-types.js';
import { ManualClock, scratchDir, tempDir, suiteHome } from '../helpers.js';
import { BIN } from '../mcp/setup.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One raw HTTP request (so any header, Origin included, can be sent as is). */
function request(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'POST', headers: init.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'security-test', version: '1.0.0' } },
});
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Sends initialize with `headers`; the answer, and the session id when one was opened. */
async function initialize(url: string, headers: Record<string, string> = {}): Promise<Answer & { session?: string }> {
  const answer = await request(url, { headers: { ...JSON_HEADERS, ...headers }, body: INITIALIZE });
  const session = answer.headers['mcp-session-id'];
  return typeof session === 'string' ? { ...answer, session } : answer;
}

const rpcError = (answer: Answer) => (JSON.parse(answer.body) as { error: { code: number; message: string } }).error;

let host: ToolHost;
/** the host's clock: sessions' idleness and their sweep wait on it, so a test moves it */
const clock = new ManualClock(Date.now());
/** 'change' listeners the servers hold on the host right now. */
let changeListeners = 0;
let counted: ToolHost;

beforeAll(async () => {
  host = await createToolHost({
    clock,
    cwd: scratchDir(),
    env: { PATH: process.env.PATH },
    config: { builtins: false, cache: { enabled: false } },
  });
  counted = {
    ...host,
    on(event, listener) {
      if (event === 'change') changeListeners++;
      host.on(event, listener);
      return counted;
    },
    off(event, listener) {
      if (event === 'change') changeListeners--;
      host.off(event, listener);
      return counted;
    },
  };
});
afterAll(() => host.close());

async function withEndpoint(
  options: Partial<HttpServeOptions>,
  fn: (endpoint: HttpEndpoint) => Promise<void>,
): Promise<void> {
  const endpoint = await serveHttp(counted, { host: '127.0.0.1', port: 0, ...options });
  try {
    await fn(endpoint);
  } finally {
    await endpoint.close();
  }
}

describe('Origin validation', () => {
  it('refuses a foreign or null Origin with 403 before anything runs; loopback, listed and absent origins pass', async () => {
    await withEndpoint({ allowedOrigins: ['https://app.example'] }, async (endpoint) => {
      for (const origin of [
        'https://evil.example',
        'null',
        'https://app.example:444',
        'http://localhost.evil.example',
      ]) {
        const answer = await initialize(endpoint.url, { origin });
        expect(answer.status, origin).toBe(403);
        expect(rpcError(answer).message, origin).toContain('Forbidden');
        expect(answer.session, origin).toBeUndefined();
      }
      expect(endpoint.sessions).toBe(0);
      for (const origin of [
        'http://localhost:5173',
        'http://127.0.0.1:3000',
        'http://[::1]:8080',
        'https://app.example',
        undefined,
      ]) {
        const answer = await initialize(endpoint.url, origin ? { origin } : {});
        expect(answer.status, String(origin)).toBe(200);
        expect(answer.session, String(origin)).toBeTruthy();
      }
    });
  });
});

describe('malformed requests', () => {
  it('answers malformed JSON with JSON-RPC -32700 (parse error), with or without a session', async () => {
    await withEndpoint({}, async (endpoint) => {
      const fresh = await request(endpoint.url, { headers: JSON_HEADERS, body: '{"jsonrpc": "2.0", "method": ' });
      expect(fresh.status).toBe(400);
      expect(rpcError(fresh).code).toBe(-32700);
      const { session } = await initialize(endpoint.url);
      const within = await request(endpoint.url, {
        headers: { ...JSON_HEADERS, 'mcp-session-id': session!, 'mcp-protocol-version': '2025-03-26' },
        body: 'not json at all',
      });
      expect(within.status).toBe(400);
      expect(rpcError(within).code).toBe(-32700);
    });
  });
});

describe('sessions', () => {
  it('an idle session expires after serve.sessionIdleMs, freeing its server and its listener', async () => {
    const before = changeListeners;
    await withEndpoint({ sessionIdleMs: 1_000 }, async (endpoint) => {
      const { session } = await initialize(endpoint.url);
      expect(endpoint.sessions).toBe(1);
      clock.advance(999);
      expect(endpoint.sessions).toBe(1);
      // The sweep (every quarter of sessionIdleMs) that falls due at 1 s of idleness closes it.
      clock.advance(1);
      await expect.poll(() => endpoint.sessions, { timeout: 10_000, interval: 50 }).toBe(0);
      const gone = await request(endpoint.url, {
        headers: { ...JSON_HEADERS, 'mcp-session-id': session! },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      expect(gone.status).toBe(404);
      // Only the endpoint's one shared listener remains while it is open.
      expect(changeListeners - before).toBe(1);
    });
    expect(changeListeners).toBe(before);
  });

  it('beyond serve.maxSessions closes the longest-idle session, refuses with 503 only while every session has a request in flight', async () => {
    await withEndpoint({ maxSessions: 2 }, async (endpoint) => {
      const first = await initialize(endpoint.url);
      const second = await initialize(endpoint.url);
      // A request whose body never ends is in flight for as long as it stays open.
      const pending = [first, second].map(({ session }) => {
        const req = http.request(endpoint.url, {
          method: 'POST',
          headers: {
            ...JSON_HEADERS,
            'mcp-session-id': session!,
            'mcp-protocol-version': '2025-03-26',
            'content-length': '1000',
          },
        });
        req.on('error', () => {});
        req.write('{');
        return req;
      });
      // Each request, once it reaches its session, marks it seen at the clock's time: then it is in flight.
      const seenAt = (session: string | undefined) => endpoint.sessionList().find((s) => s.id === session)?.lastSeen;
      clock.advance(1);
      try {
        await expect.poll(() => [seenAt(first.session), seenAt(second.session)]).toEqual([clock.now(), clock.now()]);
        const third = await initialize(endpoint.url);
        expect(third.status).toBe(503);
        expect(third.headers['retry-after']).toBeTruthy();
        expect(endpoint.sessions).toBe(2);
        clock.advance(1);
        pending[0]!.destroy();
        // Its request ended: the session is seen again, and idle.
        await expect.poll(() => seenAt(first.session)).toBe(clock.now());
        expect((await initialize(endpoint.url)).status).toBe(200);
        expect(endpoint.sessions).toBe(2);
        const gone = await request(endpoint.url, {
          method: 'DELETE',
          headers: { 'mcp-session-id': first.session!, 'mcp-protocol-version': '2025-03-26' },
        });
        expect(gone.status).toBe(404);
      } finally {
        for (const req of pending) req.destroy();
      }
    });
  });

  it('twelve concurrent clients add one listener to the host, trip no MaxListeners warning, and leave none behind', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const before = changeListeners;
    try {
      await withEndpoint({}, async (endpoint) => {
        const clients = await Promise.all(
          Array.from({ length: 12 }, async (_, i) => {
            const client = new Client({ name: `client-${i}`, version: '1.0.0' });
            await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
            await client.listTools();
            return client;
          }),
        );
        expect(endpoint.sessions).toBe(12);
        expect(changeListeners - before).toBe(1);
        await Promise.all(clients.map((client) => client.close()));
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
      expect(changeListeners).toBe(before);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('bearer-token auth', () => {
  it('refuses a request without the token, or with a wrong one, with 401; the right token passes', async () => {
    await withEndpoint({ bearerToken: 's3cret-token' }, async (endpoint) => {
      const none = await initialize(endpoint.url);
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toContain('Bearer');
      expect((await initialize(endpoint.url, { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await initialize(endpoint.url, { authorization: 's3cret-token' })).status).toBe(401);
      const right = await initialize(endpoint.url, { authorization: 'Bearer s3cret-token' });
      expect(right.status).toBe(200);
      expect(right.session).toBeTruthy();
    });
  });

  it('the CLI serves a non-loopback address with --token-env, and refuses when the variable is unset', async () => {
    const work = tempDir();
    const config = `${work.dir}/toolshed.config.json`;
    writeFileSync(config, JSON.stringify({ builtins: false, cache: { enabled: false } }));
    const run = (args: string[], env: Record<string, string>) =>
      spawn(process.execPath, [BIN, 'serve', '--config', config, ...args], {
        cwd: work.dir,
        env: { ...suiteHome(), PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    const child = run(['--http', '0.0.0.0:0', '--token-env', 'MCP_TOKEN', '--allow-origin', 'https://app.example'], {
      MCP_TOKEN: 'cli-token',
    });
    try {
      let stderr = '';
      const port = await new Promise<number>((resolve, reject) => {
        child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const match = /listening on http:\/\/0\.0\.0\.0:(\d+)\/mcp/.exec(stderr);
          if (match) resolve(Number(match[1]));
        });
        child.once('exit', () => reject(new Error(`serve exited: ${stderr}`)));
      });
      expect(stderr).toContain('bearer token from MCP_TOKEN required');
      const url = `http://127.0.0.1:${port}/mcp`;
      expect((await initialize(url)).status).toBe(401);
      expect(
        (await initialize(url, { authorization: 'Bearer cli-token', origin: 'https://evil.example' })).status,
      ).toBe(403);
      expect((await initialize(url, { authorization: 'Bearer cli-token', origin: 'https://app.example' })).status).toBe(
        200,
      );
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    const unset = run(['--http', '0.0.0.0:0', '--token-env', 'NOT_SET_ANYWHERE'], {});
    let stderr = '';
    unset.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // 'close' (the process ended and its stderr was read to the end), not 'exit'.
    const code = await new Promise<number | null>((resolve) => unset.once('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--token-env NOT_SET_ANYWHERE: the environment variable NOT_SET_ANYWHERE is not set');
    work.cleanup();
  });
});
