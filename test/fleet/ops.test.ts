/**
 * The ops endpoints of `toolshed serve --http` on real replicas: /metrics
 * after real SDK calls carries the call counts by tool and outcome code, the
 * latency histogram, sessions, queue depth, breaker states and state-store
 * errors; /readyz follows a real Redis server going down and coming back;
 * /healthz answers outside the bearer auth, and a non-loopback bind serves no
 * ops endpoint unless --ops (or serve.ops) says so; /readyz is 503 while the
 * host is still opening, or when it failed to open.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { serveHttp } from '#internal/core/mcp-server/http/http.js';
import { opsEndpoints } from '#internal/core/mcp-server/http/ops.js';
import { openingHost } from '#internal/core/host/opening-host.js';
import { fixture, fixtureOptions, tempDir } from '../helpers.js';
import { killLeftoversAfterAll, freePort, startReplica, type Replica } from '../support/fleet.js';

killLeftoversAfterAll();

const project = tempDir('toolshed-ops-');
const started: Array<{ stop(): Promise<void> }> = [];
const clients: Client[] = [];
let redisPort: number;
let redis: { stop(): Promise<void> } | undefined;

/** A redis-server on `port` (the same port again after a stop, as a restarted store would be). */
async function startRedis(port: number): Promise<{ stop(): Promise<void> }> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  await new Promise<void>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Writes a config serving the greetings fixture with `extra`, and returns its path. */
function config(name: string, extra: Record<string, unknown> = {}): string {
  const file = path.join(project.dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      builtins: false,
      cache: { enabled: false },
      plugins: [{ package: fixture('plugins', 'greetings'), trust: 'trusted' }],
      ...extra,
    }),
  );
  return file;
}

async function replica(options: Parameters<typeof startReplica>[0]): Promise<Replica> {
  const r = await startReplica(options);
  started.push(r);
  return r;
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'ops-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

const get = async (base: string, route: string, headers: Record<string, string> = {}) => {
  const res = await fetch(new URL(route, base), { headers });
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') ?? '' };
};

/** The value of one series in Prometheus text, e.g. `toolshed_tool_calls_total{tool="hello",code="OK"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

beforeAll(async () => {
  redisPort = await freePort();
  redis = await startRedis(redisPort);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled(started.map((s) => s.stop()));
  await redis?.stop();
  project.cleanup();
}, 60_000);

describe('/metrics', () => {
  it('counts calls by tool and outcome code, with latency, sessions, queue depth, breaker states and store errors', {
    timeout: 60_000,
  }, async () => {
    const r = await replica({
      cwd: project.dir,
      config: config('metrics', { state: { store: `redis://127.0.0.1:${redisPort}` } }),
    });
    const client = await connect(r.url);
    for (let i = 0; i < 3; i++) expect((await client.callTool({ name: 'hello', arguments: {} })).isError).toBeFalsy();
    expect((await client.callTool({ name: 'no_such_tool_xyz', arguments: {} })).isError).toBe(true);

    const { status, body, type } = await get(r.url, '/metrics');
    expect(status).toBe(200);
    expect(type).toContain('text/plain');
    expect(sample(body, 'toolshed_tool_calls_total{tool="hello",code="OK"}')).toBe(3);
    // A name the host does not know gets one label, so clients cannot mint series.
    expect(sample(body, 'toolshed_tool_calls_total{tool="(unknown)",code="UNKNOWN_TOOL"}')).toBe(1);
    expect(body).not.toContain('no_such_tool_xyz');
    expect(sample(body, 'toolshed_tool_call_duration_seconds_count{tool="hello"}')).toBe(3);
    expect(sample(body, 'toolshed_tool_call_duration_seconds_bucket{le="+Inf",tool="hello"}')).toBe(3);
    expect(sample(body, 'toolshed_sessions')).toBe(1);
    expect(sample(body, 'toolshed_queue_depth{plugin="toolshed-plugin-greetings"}')).toBe(0);
    expect(sample(body, 'toolshed_calls_in_flight{plugin="toolshed-plugin-greetings"}')).toBe(0);
    expect(sample(body, 'toolshed_breaker_open{tool="hello"}')).toBe(0);
    expect(sample(body, 'toolshed_state_store_errors_total')).toBe(0);
    expect(body).toContain('process_cpu_seconds_total');
  });
});

describe('/readyz and /healthz', () => {
  it('/readyz is 503 with the reason while the state store is down, and 200 again once it is back', {
    timeout: 60_000,
  }, async () => {
    const r = await replica({
      cwd: project.dir,
      config: config('ready', { state: { store: `redis://127.0.0.1:${redisPort}` } }),
    });
    expect(await get(r.url, '/readyz')).toMatchObject({ status: 200, body: 'ready\n' });
    await redis!.stop();
    redis = undefined;
    const down = await get(r.url, '/readyz');
    expect(down.status).toBe(503);
    expect(down.body).toMatch(/^not ready: the state store \(redis\) is unreachable/);
    // The process still serves: liveness must not restart it for its store's outage.
    expect((await get(r.url, '/healthz')).status).toBe(200);
    redis = await startRedis(redisPort);
    await expect.poll(async () => (await get(r.url, '/readyz')).status, { timeout: 20_000, interval: 200 }).toBe(200);
    const metrics = await get(r.url, '/metrics');
    expect(sample(metrics.body, 'toolshed_state_store_errors_total')).toBeGreaterThan(0);
  });

  it('answers outside the bearer auth, and a non-loopback bind serves them only with --ops', {
    timeout: 60_000,
  }, async () => {
    const env = { OPS_TEST_TOKEN: 'secret-token' };
    const plain = await replica({
      cwd: project.dir,
      config: config('remote'),
      args: ['--http', `0.0.0.0:${await freePort()}`, '--token-env', 'OPS_TEST_TOKEN'],
      env,
    });
    const base = plain.url.replace('0.0.0.0', '127.0.0.1');
    for (const route of ['/healthz', '/readyz', '/metrics']) expect((await get(base, route)).status, route).toBe(401);
    expect((await get(base, '/healthz', { authorization: 'Bearer secret-token' })).status).toBe(404);

    const withOps = await replica({
      cwd: project.dir,
      config: config('remote'),
      args: ['--http', `0.0.0.0:${await freePort()}`, '--token-env', 'OPS_TEST_TOKEN', '--ops'],
      env,
    });
    const opsBase = withOps.url.replace('0.0.0.0', '127.0.0.1');
    expect(await get(opsBase, '/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    expect((await get(opsBase, '/readyz')).status).toBe(200);
    expect((await get(opsBase, '/metrics')).body).toContain('toolshed_sessions 0');
    // /mcp still needs the token.
    expect((await fetch(withOps.url.replace('0.0.0.0', '127.0.0.1'), { method: 'POST', body: '{}' })).status).toBe(401);
  });
});

describe('where the ops endpoints are, and a host still opening', () => {
  const hosts: ToolHost[] = [];
  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.close()));
  });
  const open = async (serve: Record<string, unknown>) => {
    const h = await createToolHost(fixtureOptions(['greetings'], { config: { serve } }));
    hosts.push(h);
    return h;
  };

  it('serve.ops: true serves them on a non-loopback address, serve.ops: false not even on loopback', {
    timeout: 60_000,
  }, async () => {
    const on = await serveHttp(await open({ ops: true }), { host: '0.0.0.0', port: 0 });
    const off = await serveHttp(await open({ ops: false }), { host: '127.0.0.1', port: 0 });
    try {
      expect((await get(on.url.replace('0.0.0.0', '127.0.0.1'), '/healthz')).status).toBe(200);
      expect((await get(off.url, '/healthz')).status).toBe(404);
      expect((await get(off.url, '/metrics')).status).toBe(404);
    } finally {
      await Promise.all([on.close(), off.close()]);
    }
  });

  it('/readyz is 503 while the host opens and 200 once it is open; 503 with the error when it failed to open', {
    timeout: 60_000,
  }, async () => {
    let resolve!: (host: ToolHost) => void;
    let reject!: (error: Error) => void;
    const opening = openingHost(new Promise<ToolHost>((res) => (resolve = res)));
    const failing = openingHost(new Promise<ToolHost>((_, rej) => (reject = rej)));
    const routes = [
      opsEndpoints(opening, { sessions: () => 0, evicted: () => 0 }),
      opsEndpoints(failing, { sessions: () => 0, evicted: () => 0 }),
    ];
    const servers = routes.map((ops) =>
      http.createServer((req, res) => (ops.handle(req, res) ? undefined : res.writeHead(404).end())),
    );
    await Promise.all(servers.map((server) => new Promise<void>((done) => server.listen(0, '127.0.0.1', done))));
    const [openingUrl, failingUrl] = servers.map(
      (server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    );
    try {
      expect(await get(openingUrl!, '/readyz')).toMatchObject({
        status: 503,
        body: 'not ready: the host is still opening (loading plugins)\n',
      });
      expect((await get(openingUrl!, '/healthz')).status).toBe(200);
      resolve(await open({}));
      await expect.poll(async () => (await get(openingUrl!, '/readyz')).status).toBe(200);
      reject(new Error('config is broken'));
      await expect
        .poll(async () => (await get(failingUrl!, '/readyz')).body)
        .toBe('not ready: the host failed to open: config is broken\n');
    } finally {
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
    }
  });
});
