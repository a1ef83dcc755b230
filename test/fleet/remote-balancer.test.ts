/**
 * A remote toolset behind a load balancer: three stateless `toolshed serve --http`
 * replicas behind a real haproxy, one killed with 20 calls in flight. Only the
 * calls on the killed replica fail; the connection stays up, and the failures do
 * not count towards the tool's breaker, so calls right after all succeed. The
 * same holds for connections reset under single calls while the server answers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolHost } from 'toolshed';
import { killLeftoversAfterAll, callsInFlight, startReplica, type Haproxy, type Replica } from '../support/fleet.js';
import { fleet, remoteHost, replicaProject, startBalancer } from './remote-setup.js';

killLeftoversAfterAll();

const project = replicaProject();
let replicas: Replica[] = [];
let balancer: Haproxy;
let host: ToolHost;
let resetter: http.Server | undefined;

beforeAll(async () => {
  replicas = await Promise.all([0, 1, 2].map(() => startReplica({ cwd: project.dir, stateless: true })));
  balancer = await startBalancer(
    replicas.map((replica) => replica.address),
    project.dir,
  );
  host = await remoteHost(balancer.url);
}, 60_000);

afterAll(async () => {
  await host?.close();
  await new Promise((resolve) => (resetter ? resetter.close(resolve) : resolve(undefined)));
  await balancer?.stop();
  await Promise.all(replicas.map((replica) => replica.stop()));
  project.cleanup();
});

describe('one of three replicas killed under load', () => {
  it('fails only the calls on that replica, keeps the connection, and leaves the breaker closed', {
    timeout: 60_000,
  }, async () => {
    expect(fleet(host.explain()).state).toBe('connected');
    const calls = Array.from({ length: 20 }, () => host.call('slow', { ms: 1_500 }));
    // Calls are running on the replica that is killed.
    await expect.poll(() => callsInFlight(replicas[0]!)).toBeGreaterThan(0);
    replicas[0]!.kill();
    const outcomes = await Promise.all(calls);
    const failed = outcomes.filter((outcome) => !outcome.ok);
    // Round robin put about a third of them on the killed replica; those fail, fast, as transport errors.
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length).toBeLessThanOrEqual(8);
    for (const outcome of failed)
      expect(outcome).toMatchObject({
        ok: false,
        code: 'TOOL_UNREACHABLE',
        message: 'slow did not reach its server: the MCP server fleet: HTTP 502 Bad Gateway',
      });
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(20 - failed.length);
    expect(fleet(host.explain()).state).toBe('connected');
    // The breaker did not open: no circuit is open, and once the balancer has taken the dead
    // replica out, the next calls, on the two healthy replicas, all succeed.
    expect((host.explain().breakers ?? []).filter((circuit) => circuit.state !== 'counting')).toEqual([]);
    await balancer.down(replicas[0]!.address);
    const after = await Promise.all(Array.from({ length: 20 }, () => host.call('echo', { n: 1 })));
    expect(after.filter((outcome) => !outcome.ok)).toEqual([]);
  });
});

/**
 * A forwarder in front of the balancer that resets the connection of every request whose body
 * asks for it (`"reset":true`), as a network between toolshed and a healthy fleet may.
 */
async function startResetter(target: string): Promise<string> {
  resetter = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.includes('"reset":true')) return void req.socket.destroy();
      const upstream = http.request(target, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => resetter!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(resetter.address() as AddressInfo).port}/mcp`;
}

describe('connections reset under single calls while the fleet answers', () => {
  it('fail those calls alone: the connection stays, and the tool stays in service', { timeout: 60_000 }, async () => {
    const url = await startResetter(balancer.url);
    const reset = await remoteHost(url);
    try {
      expect(fleet(reset.explain()).state).toBe('connected');
      for (let i = 0; i < 6; i++) {
        expect(await reset.call('echo', { reset: true })).toMatchObject({ ok: false, code: 'TOOL_UNREACHABLE' });
        // The very next call works: the connection was not dropped, and six failures opened no breaker.
        expect(await reset.call('echo', { i })).toMatchObject({ ok: true });
      }
      expect(fleet(reset.explain())).toMatchObject({ state: 'connected', restarts: 0 });
    } finally {
      await reset.close();
    }
  });
});
