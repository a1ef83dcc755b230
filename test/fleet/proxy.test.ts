/**
 * toolshed serve --http behind real load balancers: the shipped haproxy and
 * nginx configurations (deploy/), run as they are against three replicas with
 * SDK clients. The loopback Host check accepts the balancer's public URL
 * (--public-url) and still refuses a rebound name; stateful sessions stay on
 * their replica (haproxy learns the id from the reply; nginx routes on the
 * replica name the id starts with); a session whose replica died gets a 404
 * saying so, and the client recovers by initializing again.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteHome } from '../helpers.js';
import {
  killLeftoversAfterAll,
  freePort,
  startHaproxy,
  startNginx,
  startReplica,
  type Balancer,
  type Replica,
} from '../support/fleet.js';
import { legacyClient, modernClient, proxyProject, shipped, textOf } from './proxy-setup.js';

killLeftoversAfterAll();

const project = proxyProject('toolshed-proxy-');
const cleanups: Array<() => Promise<unknown> | unknown> = [];
const ports = { haproxyStateless: 0, nginxStateless: 0, haproxyStateful: 0, nginxStateful: 0 };
let stateless: Replica[];
let stateful: Replica[];
const balancers: Record<keyof typeof ports, Balancer> = {} as Record<keyof typeof ports, Balancer>;

const publicUrls = (...names: Array<keyof typeof ports>) =>
  names.map((name) => `http://127.0.0.1:${ports[name]}/mcp`).join(',');

beforeAll(async () => {
  for (const name of Object.keys(ports) as Array<keyof typeof ports>) ports[name] = await freePort();
  const common = { cwd: project.dir, config: project.config };
  // Each replica's stop is queued as soon as it runs, so one that fails to start leaves none of the others behind.
  const replica = async (options: Parameters<typeof startReplica>[0]) => {
    const started = await startReplica(options);
    cleanups.push(() => started.stop());
    return started;
  };
  stateless = await Promise.all(
    [0, 1, 2].map(() =>
      replica({ ...common, stateless: true, args: ['--public-url', publicUrls('haproxyStateless', 'nginxStateless')] }),
    ),
  );
  stateful = await Promise.all(
    [1, 2, 3].map((n) =>
      replica({
        ...common,
        args: ['--replica', `replica${n}`, '--public-url', publicUrls('haproxyStateful', 'nginxStateful')],
      }),
    ),
  );
  const addresses = (replicas: Replica[]) => replicas.map((replica) => replica.address);
  // Each balancer's stop is queued as soon as it runs: a later one that fails to start leaves none behind.
  const started = (balancer: Balancer) => {
    cleanups.push(() => balancer.stop());
    return balancer;
  };
  balancers.haproxyStateless = started(
    await startHaproxy(
      shipped('haproxy/stateless.cfg'),
      addresses(stateless),
      project.dir,
      undefined,
      ports.haproxyStateless,
    ),
  );
  balancers.haproxyStateful = started(
    await startHaproxy(
      shipped('haproxy/stateful.cfg'),
      addresses(stateful),
      project.dir,
      undefined,
      ports.haproxyStateful,
    ),
  );
  balancers.nginxStateless = started(
    await startNginx(shipped('nginx/stateless.conf'), addresses(stateless), project.dir, ports.nginxStateless),
  );
  balancers.nginxStateful = started(
    await startNginx(shipped('nginx/stateful.conf'), addresses(stateful), project.dir, ports.nginxStateful),
  );
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(
    cleanups
      .splice(0)
      .reverse()
      .map((cleanup) => cleanup()),
  );
  project.cleanup();
}, 60_000);

/** Connects `count` 2025-era clients through `url`, closed in afterAll. */
async function clients(url: string, count: number) {
  const connected = await Promise.all(Array.from({ length: count }, () => legacyClient(url)));
  for (const { client } of connected) cleanups.push(() => client.close());
  return connected;
}

describe('the flags', () => {
  const serve = (...args: string[]) =>
    spawnSync(process.execPath, [fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url)), 'serve', ...args], {
      cwd: project.dir,
      encoding: 'utf8',
      env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
      timeout: 60_000,
    });

  it('refuses a replica name that cannot be an id prefix, a public URL that is not http(s), and both without --http', () => {
    expect(serve('--http', '127.0.0.1:0', '--replica', 'a.b').stderr).toContain(
      "--replica expects a name of letters, digits, - and _ (at most 40), got 'a.b'",
    );
    expect(serve('--http', '127.0.0.1:0', '--public-url', 'ftp://tools.example').stderr).toContain(
      "--public-url: 'ftp://tools.example' is not an http:// or https:// URL",
    );
    expect(serve('--replica', 'a').stderr).toContain(
      '--allow-origin, --token-env, --public-url and --replica apply to --http only',
    );
  }, 60_000);
});

describe('the Host check behind a reverse proxy', () => {
  it('refuses the balancer’s Host without --public-url (as on main), and accepts it with', async () => {
    const bare = await startReplica({ cwd: project.dir, config: project.config, stateless: true });
    cleanups.push(() => bare.stop());
    const balancer = await startHaproxy(shipped('haproxy/stateless.cfg'), [bare.address], project.dir);
    cleanups.push(() => balancer.stop());
    const response = await fetch(balancer.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Invalid Host header');
    const { client } = (await clients(balancers.haproxyStateless.url, 1))[0]!;
    expect(textOf(await client.callTool({ name: 'echo', arguments: { via: 'haproxy' } }))).toBe('{"via":"haproxy"}');
  }, 60_000);

  it('still refuses a rebound name, directly and through the balancer', async () => {
    const init = { method: 'POST', body: '{}' };
    // fetch sets Host from the URL; node:http lets a test send the Host a rebound page would.
    const { request } = await import('node:http');
    const status = (port: number, host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/mcp',
            method: init.method,
            headers: { host, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.once('error', reject);
        req.end(init.body);
      });
    const direct = Number(stateless[0]!.address.split(':')[1]);
    expect(await status(direct, `rebound.example:${direct}`)).toBe(403);
    expect(await status(ports.haproxyStateless, `rebound.example:${ports.haproxyStateless}`)).toBe(403);
    expect(await status(ports.nginxStateless, `rebound.example:${ports.nginxStateless}`)).toBe(403);
    // The public name passes the Host check (the body is then refused as a bad request, not 403).
    expect(await status(ports.haproxyStateless, `127.0.0.1:${ports.haproxyStateless}`)).not.toBe(403);
  }, 60_000);
});

describe('stateless round robin (haproxy and nginx)', () => {
  for (const name of ['haproxyStateless', 'nginxStateless'] as const) {
    it(`${name}: six clients of both eras call through three replicas`, async () => {
      const legacy = await clients(balancers[name].url, 3);
      const modern = await Promise.all([0, 1, 2].map(() => modernClient(balancers[name].url)));
      for (const client of modern) cleanups.push(() => client.close());
      const results = await Promise.all(
        [...legacy.map(({ client }) => client), ...modern].flatMap((client, index) =>
          [1, 2].map((n) => client.callTool({ name: 'echo', arguments: { index, n } })),
        ),
      );
      expect(results.map(textOf)).toEqual(
        [0, 1, 2, 3, 4, 5].flatMap((index) => [1, 2].map((n) => JSON.stringify({ index, n }))),
      );
    }, 60_000);
  }
});

describe('stateless replies', () => {
  /**
   * A 2025-era tools/call of kitchen's chatty (it logs and reports progress), straight to a replica, with no session.
   */
  const call = (meta: Record<string, unknown>) =>
    fetch(stateless[0]!.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'chatty', arguments: {}, _meta: meta },
      }),
    });

  it('are one JSON body when the call asks for nothing to stream', async () => {
    const response = await call({});
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await response.json()) as { result: { content: unknown[] } }).result.content.length).toBeGreaterThan(0);
  }, 60_000);

  it('stream progress over SSE when the call carries a progressToken', async () => {
    const response = await call({ progressToken: 'p1' });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const body = await response.text();
    expect(body).toContain('"method":"notifications/progress"');
    expect(body).toContain('"result"');
  }, 60_000);
});

describe('stateful replicas, each session kept on its replica', () => {
  for (const name of ['haproxyStateful', 'nginxStateful'] as const) {
    it(`${name}: six sessions list, call and get approval through three replicas`, async () => {
      const connected = await clients(balancers[name].url, 6);
      // Ids name the replica that issued them; round robin spreads the sessions over all three.
      const issuers = new Set(connected.map(({ transport }) => /^(replica\d)\./.exec(transport.sessionId ?? '')?.[1]));
      expect([...issuers].sort()).toEqual(['replica1', 'replica2', 'replica3']);
      for (const { client } of connected) {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('delete_note');
        expect(textOf(await client.callTool({ name: 'echo', arguments: { a: 1 } }))).toBe('{"a":1}');
        expect(textOf(await client.callTool({ name: 'delete_note', arguments: { id: 'a' } }))).toBe('deleted a');
      }
    }, 60_000);
  }

  it('a session whose replica died gets a 404 saying so, through either balancer, and the client initializes again', async () => {
    // Sessions on replica1 through each balancer (round robin reaches it within three connects).
    const onFirst = async (url: string) => {
      for (;;) {
        const connected = (await clients(url, 1))[0]!;
        if (connected.transport.sessionId?.startsWith('replica1.')) return connected;
      }
    };
    const viaHaproxy = await onFirst(balancers.haproxyStateful.url);
    const viaNginx = await onFirst(balancers.nginxStateful.url);
    stateful[0]!.kill();
    // Gone, not dying: a request the dying process accepted would fail as a reset instead.
    await stateful[0]!.stop();
    for (const { client } of [viaHaproxy, viaNginx]) {
      const error = await client.callTool({ name: 'echo', arguments: {} }).then(
        () => undefined,
        (failure: Error & { code?: number }) => failure,
      );
      // The SDK's StreamableHTTPError carries the HTTP status as its code.
      expect(error?.code).toBe(404);
      expect(error?.message).toContain('it was opened on replica replica1');
      expect(error?.message).toContain('send initialize again');
    }
    for (const url of [balancers.haproxyStateful.url, balancers.nginxStateful.url]) {
      const { client, transport } = (await clients(url, 1))[0]!;
      expect(transport.sessionId).not.toMatch(/^replica1\./);
      expect(textOf(await client.callTool({ name: 'echo', arguments: { again: true } }))).toBe('{"again":true}');
    }
  }, 60_000);
});
