/**
 * Sessions per client on `toolshed serve --http`: a client (its remote
 * address) at `serve.maxSessionsPerClient` closes its own longest-idle
 * session to open another, and gets 429 with a message only while all of its
 * sessions are busy (a burst), while another client still opens sessions; a
 * request from a trusted proxy counts as the client X-Forwarded-For names;
 * a full server closes its longest-idle session to admit a new one (an open GET stream is not
 * activity), and refuses only when every session has a request in flight.
 * A real host and server; client A speaks raw HTTP from 127.0.0.2, client B
 * is the SDK's client from 127.0.0.1.
 */
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { serveHttp } from '#internal/core/mcp-server/http/http.js';
import type { HttpEndpoint, HttpServeOptions } from '#internal/core/mcp-server/public-types.js';
import { fixtureOptions, ManualClock } from '../helpers.js';

interface Answer {
  status: number;
  body: string;
  session?: string;
}

const PROTOCOL = '2025-03-26';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'ops-sessions', version: '1.0.0' } },
});
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** One request from `from` (a loopback address of its own, so the server sees another client). */
function request(
  url: string,
  from: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: init.method ?? 'POST', headers: init.headers ?? {}, localAddress: from },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => {
          const session = res.headers['mcp-session-id'];
          resolve({ status: res.statusCode ?? 0, body, ...(typeof session === 'string' ? { session } : {}) });
        });
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

const initialize = (url: string, from: string) => request(url, from, { headers: HEADERS, body: INITIALIZE });

/** A tools/list in `session`: 200 while the session lives, 404 once it is gone. */
const list = (url: string, from: string, session: string) =>
  request(url, from, {
    headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });

/** Opens a GET stream on `session` and leaves it open; resolves once the server answered its headers. */
function listen(url: string, from: string, session: string, opened: http.ClientRequest[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      url,
      {
        headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL },
        localAddress: from,
      },
      (res) => resolve(res.statusCode ?? 0),
    );
    req.on('error', (error) => (opened.includes(req) ? undefined : reject(error)));
    opened.push(req);
  });
}

const A = '127.0.0.2';
const B = '127.0.0.1';
/** the host's clock: sessions' idleness is read from it, so a test moves it between uses */
const clock = new ManualClock(Date.now());

let host: ToolHost;
const clients: Client[] = [];
beforeAll(async () => {
  host = await createToolHost(fixtureOptions(['greetings'], { clock }));
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await host.close();
});

async function withEndpoint(
  options: Partial<HttpServeOptions>,
  fn: (endpoint: HttpEndpoint) => Promise<void>,
): Promise<void> {
  const endpoint = await serveHttp(host, { host: '127.0.0.1', port: 0, ...options });
  try {
    await fn(endpoint);
  } finally {
    await endpoint.close();
  }
}

async function sdkClient(url: string): Promise<Client> {
  const client = new Client({ name: 'client-b', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

describe('sessions per client', () => {
  it('refuses a client at serve.maxSessionsPerClient with 429 and a message while each of its sessions is busy, and another client still opens sessions', async () => {
    await withEndpoint({ maxSessions: 10, maxSessionsPerClient: 2 }, async (endpoint) => {
      const mine = [await initialize(endpoint.url, A), await initialize(endpoint.url, A)];
      // A call in flight in each of A's sessions: held in a hook until released.
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let arrived = 0;
      const stop = host.use({
        beforeCall: async (call) => {
          if (call.tool !== 'hello') return;
          arrived++;
          await gate;
        },
      });
      try {
        const calls = mine.map((answer, id) =>
          request(endpoint.url, A, {
            headers: { ...HEADERS, 'mcp-session-id': answer.session!, 'mcp-protocol-version': PROTOCOL },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 10 + id,
              method: 'tools/call',
              params: { name: 'hello', arguments: {} },
            }),
          }),
        );
        await expect.poll(() => arrived).toBe(2);
        const refused = await initialize(endpoint.url, A);
        expect(refused.status).toBe(429);
        expect(JSON.parse(refused.body).error.message).toMatch(
          /^Too many sessions for this client: it holds 2, the most is 2/,
        );
        // Another client is not affected.
        const b = await sdkClient(endpoint.url);
        expect((await b.listTools()).tools.map((t) => t.name)).toContain('hello');
        release();
        expect((await Promise.all(calls)).map((answer) => answer.status)).toEqual([200, 200]);
      } finally {
        stop();
        release();
      }
      // Idle again: the next open closes A's idlest session instead of refusing.
      expect((await initialize(endpoint.url, A)).status).toBe(200);
      expect(endpoint.sessions).toBe(3);
    });
  });

  it('admits a burst of opens exactly up to the cap: sessions still being opened count', async () => {
    await withEndpoint({ maxSessions: 10, maxSessionsPerClient: 3 }, async (endpoint) => {
      const burst = await Promise.all(Array.from({ length: 5 }, () => initialize(endpoint.url, A)));
      expect(burst.every((answer) => answer.status === 200 || answer.status === 429)).toBe(true);
      // However the burst interleaved, A never holds more than its three.
      expect(endpoint.sessions).toBe(3);
    });
  });

  it("at its cap, a client's next session closes its own longest-idle one, never another client's", async () => {
    await withEndpoint({ maxSessions: 10, maxSessionsPerClient: 2 }, async (endpoint) => {
      const other = await initialize(endpoint.url, B);
      const [oldest, newer] = [await initialize(endpoint.url, A), await initialize(endpoint.url, A)];
      clock.advance(5);
      // The newer one is used again, so the oldest is the idlest.
      expect((await list(endpoint.url, A, newer.session!)).status).toBe(200);
      expect((await initialize(endpoint.url, A)).status).toBe(200);
      expect((await list(endpoint.url, A, oldest.session!)).status).toBe(404);
      expect((await list(endpoint.url, A, newer.session!)).status).toBe(200);
      expect((await list(endpoint.url, B, other.session!)).status).toBe(200);
      expect(endpoint.sessions).toBe(3);
    });
  });

  it('counts a request from a trusted proxy as the client its X-Forwarded-For names, and ignores the header from anyone else', async () => {
    const PROXY = '127.0.0.3';
    await withEndpoint({ maxSessions: 10, maxSessionsPerClient: 1, trustedProxies: [PROXY] }, async (endpoint) => {
      const via = (from: string, forwarded: string) =>
        request(endpoint.url, from, { headers: { ...HEADERS, 'x-forwarded-for': forwarded }, body: INITIALIZE });
      // Two clients behind the proxy: one session each.
      const first = await via(PROXY, '10.0.0.1');
      const second = await via(PROXY, '10.0.0.2');
      expect([first.status, second.status]).toEqual([200, 200]);
      // The first one again, through a second (trusted) hop: the same client at its cap, so its own idle session makes
      // room.
      expect((await via(PROXY, `10.0.0.1, ${PROXY}`)).status).toBe(200);
      expect((await list(endpoint.url, PROXY, first.session!)).status).toBe(404);
      expect((await list(endpoint.url, PROXY, second.session!)).status).toBe(200);
      // A client that is not a trusted proxy cannot pick who it is counted as: its two opens are one client's.
      const own = await via(A, '10.0.0.8');
      expect((await via(A, '10.0.0.9')).status).toBe(200);
      expect((await list(endpoint.url, A, own.session!)).status).toBe(404);
      expect(endpoint.sessions).toBe(3);
    });
  });
});

describe('a full server', () => {
  it('evicts the longest-idle session to admit a new one, even one with an open GET stream', async () => {
    const streams: http.ClientRequest[] = [];
    try {
      await withEndpoint({ maxSessions: 3, maxSessionsPerClient: 10 }, async (endpoint) => {
        const first = await initialize(endpoint.url, A);
        expect(await listen(endpoint.url, A, first.session!, streams)).toBe(200);
        clock.advance(20);
        const second = await initialize(endpoint.url, A);
        clock.advance(20);
        const third = await initialize(endpoint.url, A);
        clock.advance(20);
        // Used after the others were opened: now the second is the idlest.
        expect((await list(endpoint.url, A, first.session!)).status).toBe(200);
        const fourth = await initialize(endpoint.url, B);
        expect(fourth.status).toBe(200);
        expect(endpoint.sessions).toBe(3);
        expect((await list(endpoint.url, A, second.session!)).status).toBe(404);
        for (const kept of [first, third, fourth])
          expect((await list(endpoint.url, kept === fourth ? B : A, kept.session!)).status).toBe(200);
        // The stream alone is not activity: the first goes next.
        clock.advance(20);
        for (const kept of [third, fourth]) await list(endpoint.url, kept === fourth ? B : A, kept.session!);
        expect((await initialize(endpoint.url, B)).status).toBe(200);
        expect((await list(endpoint.url, A, first.session!)).status).toBe(404);
      });
    } finally {
      for (const stream of streams) stream.destroy();
    }
  });
});
