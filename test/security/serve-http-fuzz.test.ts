/**
 * No request can take `toolshed serve --http` down. A real `serve --http` child process gets a
 * chunked body far over the limit (the 413 was followed by the process exiting, from the request
 * log's `close` handler), and then a seeded fuzzer over the HTTP front door and the JSON-RPC
 * layer: malformed, oversized, truncated and aborted requests (while the head is sent, mid-body,
 * after the request before the answer), with and without a session and the bearer token, mutated
 * from what real MCP clients of both eras send, against a server with sessions and a --stateless
 * one. After every input the server still answers a normal MCP client, and at the end it is still
 * running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteHome } from '../helpers.js';
import { BIN, kitchenProject, textOf } from '../mcp/setup.js';

const project = kitchenProject('toolshed-fuzz-', [], {
  // As for users: the first serve extracts kitchen's manifest, the others start without that worker.
  cache: { enabled: true },
  limits: { threads: 1 },
  // The fuzzer opens sessions of its own; the normal client's must not be the one evicted.
  serve: { maxSessions: 1000, maxSessionsPerClient: 1000 },
});
const children: ChildProcess[] = [];
const { config } = project;

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  project.cleanup();
});

/** A `serve --http` child on a free loopback port; its URL once it listens, and its stderr. */
async function serve(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'serve', '--config', config, '--http', '127.0.0.1:0', ...args], {
    cwd: project.dir,
    env: { ...suiteHome(), PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /listening on (http:\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    };
    child.stderr!.on('data', check);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}

/** Whether the child still runs; when not, what it said. */
function alive(server: { child: ChildProcess; stderr(): string }): string {
  return server.child.exitCode === null && server.child.signalCode === null
    ? 'running'
    : `exited ${server.child.exitCode ?? server.child.signalCode}: ${server.stderr().slice(-2000)}`;
}

/**
 * One serve child for the two 413 tests: neither changes what it serves, and each ends by checking that it still serves
 * a client.
 */
let refusing: ReturnType<typeof serve> | undefined;
const refusingServer = () => (refusing ??= serve([]));

describe('one request never stops serve --http', () => {
  it('answers a chunked body far over the limit with 413, logs it, and keeps serving', async () => {
    const server = await refusingServer();
    // Streamed a chunk at a time, never built: up to 1 GB, until the server answers or hangs up.
    const answered = await new Promise<{ status?: number; sent: number }>((resolve) => {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      let done = false;
      const req = http.request(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      });
      const finish = (status?: number) => {
        if (done) return;
        done = true;
        req.destroy();
        resolve({ ...(status !== undefined ? { status } : {}), sent });
      };
      req.on('response', (res) => finish(res.statusCode));
      req.on('error', () => finish());
      const pump = () => {
        while (!done && sent < 1024 ** 3) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!done) req.end();
      };
      pump();
    });
    expect(answered.status).toBe(413);
    expect(answered.sent).toBeLessThan(64 * 1024 * 1024);
    // The request's log line is written from its response's 'close', after the connection went.
    await expect.poll(() => server.stderr(), { timeout: 10_000 }).toMatch(/POST \/mcp 413 \d+ms from 127\.0\.0\.1/);
    const client = new Client({ name: 'after-413', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
    await client.close();
    expect(alive(server)).toBe('running');
  });
});

describe('a client refused with 413', () => {
  it('reads the 413 while it is still sending; one that goes on sending is cut off, and serve goes on', async () => {
    const server = await refusingServer();
    const { port } = new URL(server.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    let sentAfterAnswer = 0;
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.write(
      `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n`,
    );
    const chunk = `${(16 * 1024).toString(16)}\r\n${' '.repeat(16 * 1024)}\r\n`;
    // Past the 4 MB limit at once, then a chunk now and then: a client that ignores the answer.
    for (let i = 0; i < 300; i++) socket.write(chunk);
    const pump = setInterval(() => {
      if (answer) sentAfterAnswer += 16 * 1024;
      socket.write(chunk);
    }, 50);
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.on('error', () => {});
    });
    clearInterval(pump);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('request body over 4194304 bytes');
    // The server read on after its answer (no reset under a client still writing), then hung up.
    expect(sentAfterAnswer).toBeGreaterThan(0);
    const client = new Client({ name: 'after-cut', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
    await client.close();
    expect(alive(server)).toBe('running');
  });
});

describe('a serve --http whose stderr is gone', () => {
  it('keeps serving: the request log has nowhere to go, and its lines are dropped', async () => {
    const server = await serve([]);
    // The terminal closed, or the log pipe broke: every log line's write now fails (EPIPE).
    server.child.stderr!.destroy();
    const client = new Client({ name: 'no-stderr', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    for (let round = 0; round < 5; round++) expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(server.child.exitCode).toBe(null);
    await client.close();
    server.child.kill('SIGTERM');
    expect(await new Promise((resolve) => server.child.once('exit', resolve))).toBe(0);
  });
});

/** mulberry32: a small seeded generator, so every run sends the same inputs. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256)));
  return { next, int, pick, bytes, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof generator>;

/** A request a real client sent: the seed the fuzzer mutates. */
interface Seed {
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** A fetch that records what a real client sends (its session header left out: the fuzzer brings its own). */
function recording(seeds: Seed[]): typeof fetch {
  return async (input, init) => {
    const headers = Object.fromEntries(new Headers(init?.headers));
    delete headers['mcp-session-id'];
    delete headers.authorization;
    seeds.push({ method: init?.method ?? 'GET', headers, body: typeof init?.body === 'string' ? init.body : '' });
    return fetch(input, init);
  };
}

/** A JSON value changed the way a careless or hostile client would. */
function mutate(random: Random, value: unknown, depth = 0): unknown {
  const oddities: unknown[] = [
    null,
    true,
    0,
    -1,
    1e308,
    '',
    'x'.repeat(random.int(70_000)),
    [],
    {},
    { __proto__: { polluted: true } },
    '\u0000\u001b]52;c;aGk=\u0007',
    Number.MAX_SAFE_INTEGER + 2,
  ];
  if (depth > 6 || random.chance(0.08)) return random.pick(oddities);
  if (Array.isArray(value)) return value.map((item) => (random.chance(0.3) ? mutate(random, item, depth + 1) : item));
  if (value === null || typeof value !== 'object') return random.chance(0.3) ? random.pick(oddities) : value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key of Object.keys(out)) {
    if (random.chance(0.15)) delete out[key];
    else if (random.chance(0.35)) out[key] = mutate(random, out[key], depth + 1);
  }
  if (random.chance(0.1))
    out[random.pick(['method', 'params', 'id', 'jsonrpc', '_meta', 'name', 'arguments', 'constructor'])] =
      random.pick(oddities);
  return out;
}

/** A body: a mutated seed, a batch, deep nesting, bytes, truncated JSON, or one just over the size limit. */
function body(random: Random, seed: Seed): Buffer {
  const parsed = seed.body ? (JSON.parse(seed.body) as unknown) : {};
  switch (random.int(9)) {
    case 0:
      return random.bytes(random.int(300));
    case 1:
      return Buffer.from(seed.body.slice(0, random.int(seed.body.length + 1)));
    case 2:
      return Buffer.from(`${'['.repeat(20_000 + random.int(80_000))}${random.chance(0.5) ? ']'.repeat(20_000) : ''}`);
    case 3:
      return Buffer.from(JSON.stringify(Array.from({ length: random.int(200) }, () => mutate(random, parsed))));
    case 4:
      // Around serve's 4 MB limit, or far over it (the server stops reading and answers 413 mid-body).
      return Buffer.from(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'echo',
            arguments: {
              pad: 'a'.repeat(
                random.chance(0.5)
                  ? 4 * 1024 * 1024 - 100 + random.int(200)
                  : 5 * 1024 * 1024 + random.int(8 * 1024 * 1024),
              ),
            },
          },
        }),
      );
    case 5:
      return Buffer.from(
        JSON.stringify({
          jsonrpc: '2.0',
          id: random.int(5),
          method: random.pick([
            'tools/call',
            'tools/list',
            'initialize',
            'notifications/initialized',
            'ping',
            'resources/read',
            'completion/complete',
            'tasks/get',
            'logging/setLevel',
            'nope',
          ]),
          params: mutate(random, (parsed as { params?: unknown }).params ?? {}),
        }),
      );
    case 6:
      return Buffer.from('');
    default:
      return Buffer.from(JSON.stringify(mutate(random, parsed)));
  }
}

/**
 * Where a connection is cut: while the head is sent, mid-body, once all is sent, once the answer starts; or never (read
 * to the end).
 */
type Stage = 'head' | 'body' | 'sent' | 'answer' | 'end';

/** One raw request, as bytes, and where to cut it. */
function request(
  random: Random,
  seeds: readonly Seed[],
  target: { port: number; token: string; session: string },
): { bytes: Buffer; cutAt: number; stage: Stage } {
  const seed = random.pick(seeds);
  const payload = body(random, seed);
  const method = random.chance(0.85)
    ? seed.method
    : random.pick(['GET', 'DELETE', 'PUT', 'OPTIONS', 'HEAD', 'PATCH', 'POST', 'G\u0001T', '']);
  const paths = [
    '/mcp',
    '/mcp',
    '/mcp',
    '/mcp?x=1',
    '//mcp',
    '/',
    '/healthz',
    '/readyz',
    '/metrics',
    '/ui/',
    '/mcp/../mcp',
    `/${'a'.repeat(random.int(20_000))}`,
    '/%ZZ',
    '*',
  ];
  const headers: Array<[string, string]> = [
    [
      'host',
      random.chance(0.9)
        ? `127.0.0.1:${target.port}`
        : random.pick(['evil.example', '', 'localhost:1', `[::1]:${target.port}`]),
    ],
  ];
  for (const [name, value] of Object.entries(seed.headers))
    if (random.chance(0.9))
      headers.push([
        name,
        random.chance(0.9)
          ? value
          : random.pick(['', 'text/plain', '*/*', '2099-01-01', 'application/json; charset=utf-16']),
      ]);
  const auth = random.int(5);
  if (auth < 3) headers.push(['authorization', `Bearer ${target.token}`]);
  else if (auth === 3)
    headers.push([
      'authorization',
      random.pick(['Bearer wrong', 'Basic Zm9vOmJhcg==', 'Bearer', `Bearer ${target.token} extra`]),
    ]);
  const session = random.int(4);
  if (session < 2) headers.push(['mcp-session-id', target.session]);
  else if (session === 2)
    headers.push(['mcp-session-id', random.pick(['', 'nope', 'a.b.c', 'x'.repeat(5000), '\u00ff\u00fe'])]);
  if (random.chance(0.15))
    headers.push(['origin', random.pick(['https://evil.example', 'null', 'http://127.0.0.1', 'not a url'])]);
  if (random.chance(0.1)) headers.push(['x-forwarded-for', random.pick(['1.2.3.4', 'garbage, ,', '::1'])]);
  if (random.chance(0.05)) headers.push(['x-big', 'b'.repeat(20_000 + random.int(60_000))]);
  if (random.chance(0.1)) headers.push(['mcp-protocol-version', random.pick(['2025-03-26', '2026-07-28', 'v0', ''])]);
  const framing = random.int(10);
  let framed: Buffer = payload;
  // Whether the server can tell where the body ends (else it waits for more, and only a cut ends the request).
  let complete = true;
  if (framing < 5) headers.push(['content-length', String(payload.length)]);
  else if (framing < 8) {
    headers.push(['transfer-encoding', 'chunked']);
    const pieces: Buffer[] = [];
    for (let at = 0; at < payload.length; ) {
      const size = 1 + random.int(64 * 1024);
      const piece = payload.subarray(at, at + size);
      pieces.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
      at += piece.length;
    }
    // A malformed chunk stream now and then: a bad size line, or no terminating chunk.
    if (random.chance(0.2)) pieces.push(Buffer.from(random.pick(['zz\r\n', '-1\r\n', 'ffffffffffffffff\r\n'])));
    else if (random.chance(0.8)) pieces.push(Buffer.from('0\r\n\r\n'));
    else complete = false;
    framed = Buffer.concat(pieces);
  } else if (framing === 8) {
    const claimed = random.pick([
      String(payload.length + 1 + random.int(1000)),
      '-1',
      'abc',
      `${payload.length}, ${payload.length + 1}`,
    ]);
    headers.push(['content-length', claimed]);
    complete = !/^\d+$/.test(claimed);
  } else headers.push(['content-length', String(payload.length)], ['transfer-encoding', 'chunked']);
  const line = random.chance(0.95)
    ? `${method} ${random.pick(paths)} HTTP/1.1`
    : random.pick(['GARBAGE', 'POST /mcp HTTP/9.9', `POST /mcp HTTP/1.1 ${'x'.repeat(100)}`, '\u0000\u0000']);
  const head = Buffer.from(
    `${line}\r\n${headers.map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n`,
    'latin1',
  );
  const bytes = Buffer.concat([head, framed]);
  const picked = random.pick<Stage>(['head', 'body', 'sent', 'answer', 'answer', 'end']);
  // A body the server waits for the rest of gets no answer: it is half-closed instead.
  const stage = picked === 'answer' && !complete ? 'end' : picked;
  const cutAt =
    stage === 'head'
      ? random.int(head.length)
      : stage === 'body'
        ? head.length + random.int(Math.max(1, framed.length))
        : bytes.length;
  return { bytes, cutAt, stage };
}

/**
 * Sends `bytes` up to `cutAt` on a connection of its own and cuts it at `stage` (a server that never answers fails the
 * test by its timeout).
 */
function send(port: number, { bytes, cutAt, stage }: ReturnType<typeof request>): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const end = () => {
      socket.destroy();
      resolve();
    };
    socket.on('error', end);
    socket.on('close', end);
    socket.on('data', () => {
      if (stage === 'answer') end();
    });
    socket.write(bytes.subarray(0, cutAt), () => {
      if (stage === 'head' || stage === 'body' || stage === 'sent') end();
      // 'end': half-close, and read until the server closes (it answers, then closes a half-closed connection).
      else if (stage === 'end') socket.end();
    });
  });
}

// With sessions (the default) and --stateless (a server per request, session ids kept in the store).
describe.each([
  { mode: 'with sessions', flags: [] as string[], cases: 240, seed: 0x7001_5ed },
  { mode: '--stateless', flags: ['--stateless'], cases: 120, seed: 0x57a7e1e5 },
])('the HTTP front door and the JSON-RPC layer under a seeded fuzzer ($mode)', ({ flags, cases, seed }) => {
  const TOKEN = 'fuzz-token-0123456789';
  let server: Awaited<ReturnType<typeof serve>>;
  let legacy: Client;
  let modern: ModernClient;
  const seeds: Seed[] = [];
  let session = '';

  beforeAll(async () => {
    server = await serve(['--token-env', 'FUZZ_TOKEN', ...flags], { FUZZ_TOKEN: TOKEN });
    const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
    // The normal clients: a 2025-era one with a session, and a 2026-07-28 one served per request.
    // What they send (initialize, tools/list, tools/call, notifications) seeds the fuzzer.
    legacy = new Client({ name: 'normal-legacy', version: '1.0.0' });
    await legacy.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: auth, fetch: recording(seeds) }),
    );
    modern = new ModernClient(
      { name: 'normal-modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(new ModernTransport(new URL(server.url), { requestInit: auth, fetch: recording(seeds) }));
    await legacy.callTool({ name: 'echo', arguments: { seed: 1 } });
    await modern.callTool({ name: 'echo', arguments: { seed: 2 } });
    // The fuzzer's own session (the normal client's id is never sent: a DELETE would end it, rightly).
    const opened = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${TOKEN}`,
      },
      body: seeds.find((seed) => seed.body.includes('"initialize"'))!.body,
    });
    session = opened.headers.get('mcp-session-id') ?? '';
    await opened.body?.cancel();
  });

  afterAll(async () => {
    await legacy?.close();
    await modern?.close();
  });

  it(`keeps answering a normal client after each of ${cases} malformed, oversized, truncated and aborted requests`, async () => {
    expect(seeds.length).toBeGreaterThan(4);
    expect(session).not.toBe('');
    const random = generator(seed);
    const port = Number(new URL(server.url).port);
    const stages: Record<string, number> = {};
    for (let index = 0; index < cases; index++) {
      const input = request(random, seeds, { port, token: TOKEN, session });
      stages[input.stage] = (stages[input.stage] ?? 0) + 1;
      await send(port, input);
      expect(alive(server), `after case ${index}`).toBe('running');
      // The 2025-era client's session still answers after every input; the 2026-07-28 client and a new session now and
      // then.
      expect((await legacy.listTools()).tools.length, `after case ${index}`).toBeGreaterThan(0);
      if (index % 20 === 0) {
        expect(textOf(await modern.callTool({ name: 'echo', arguments: { index } }))).toContain(String(index));
        const fresh = new Client({ name: 'fresh', version: '1.0.0' });
        await fresh.connect(
          new StreamableHTTPClientTransport(new URL(server.url), {
            requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
          }),
        );
        await fresh.close();
      }
    }
    // Every stage was cut at least once.
    expect(Object.keys(stages).sort()).toEqual(['answer', 'body', 'end', 'head', 'sent']);
    expect(textOf(await legacy.callTool({ name: 'echo', arguments: { last: true } }))).toContain('last');
    expect(alive(server)).toBe('running');
    expect(server.stderr()).not.toMatch(/TypeError|RangeError|uncaught|unhandled/i);
  }, 60_000);
});
