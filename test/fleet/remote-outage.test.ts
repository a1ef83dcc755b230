/**
 * A remote toolset whose server goes away while nobody calls it: the probe
 * notices (tools hidden with the reason, no call needed), a server that stays
 * down gets one small probe per interval and no handshake, and the handshake
 * follows the first probe it answers. A stateful replica that died behind the
 * balancer leaves a session nobody knows: toolshed initializes a new one.
 */
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import type { ToolHost } from 'toolshed';
import { killLeftoversAfterAll, startReplica, type Balancer, type Replica } from '../support/fleet.js';
import { fleet, nextProbe, remoteHost, replicaProject, startBalancer, until } from './remote-setup.js';
import { ManualClock } from '../helpers.js';

killLeftoversAfterAll();

const project = replicaProject();
const cleanups: Array<() => unknown> = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  project.cleanup();
}, 60_000);

/** Registers `stop` for afterAll and returns `it`. */
function owned<T>(it: T, stop: (it: T) => unknown): T {
  cleanups.push(() => stop(it));
  return it;
}

const replica = async (options: { port?: number; stateless?: boolean } = {}) =>
  owned<Replica>(
    await startReplica({
      cwd: project.dir,
      stateless: options.stateless ?? true,
      ...(options.port ? { port: options.port } : {}),
    }),
    (r) => r.stop(),
  );
const balancer = async (addresses: string[], balance?: 'roundrobin' | 'first') =>
  owned<Balancer>(await startBalancer(addresses, project.dir, balance), (b) => b.stop());
const host = async (url: string, entry?: Record<string, unknown>, clock?: ManualClock) =>
  owned<ToolHost>(await remoteHost(url, entry, clock), (h) => h.close());
const port = (address: string) => Number(address.split(':')[1]);
const hidden = (reason: RegExp) => (report: ReturnType<ToolHost['explain']>) => {
  const slow = report.tools.find((tool) => tool.name === 'slow');
  return slow?.exposed === false && reason.test(slow.reason ?? '');
};

describe('an idle outage', () => {
  it('hides the tools with the reason without a call, and reconnects only after a probe is answered', {
    timeout: 60_000,
  }, async () => {
    const first = await replica();
    const lb = await balancer([first.address]);
    // The host's probes wait on this clock: each round is fired by the test, once the last was answered.
    const clock = new ManualClock(Date.now());
    const remote = await host(lb.url, {}, clock);
    expect(fleet(remote.explain()).state).toBe('connected');
    const probe = () => nextProbe(clock, 1_500);

    first.kill();
    const down = await until(
      remote,
      hidden(/^the MCP server fleet is unreachable: HTTP 503/),
      'the tools hidden',
      15_000,
      probe,
    );
    expect(fleet(down).reason).toMatch(/; reconnecting as soon as it answers a probe \(one every 1 s to 1\.5 s\)$/);
    // Down for a while (four probe rounds, 4 to 6 s of the clock): probes only, so no handshake was tried (a backoff
    // would have tried several).
    for (let i = 0; i < 4; i++) await probe();
    expect(fleet(remote.explain())).toMatchObject({ state: 'unreachable', restarts: 0 });

    await replica({ port: port(first.address) });
    await until(remote, (report) => fleet(report).state === 'connected', 'the reconnect', 30_000, probe);
    // One handshake: the one that followed the answered probe.
    expect(fleet(remote.explain()).restarts).toBe(1);
    expect(await remote.call('echo', { back: true })).toMatchObject({ ok: true });
  });
});

describe('a server that stays down', () => {
  it('is probed at a bounded, steady rate (probeIntervalMs), with a ping and never a handshake', {
    timeout: 60_000,
  }, async () => {
    const gone = await replica();
    const clock = new ManualClock(Date.now());
    const remote = await host(gone.url, { probeIntervalMs: 500 }, clock);
    expect(fleet(remote.explain()).state).toBe('connected');
    const probe = () => nextProbe(clock, 750);
    gone.kill();
    await until(remote, hidden(/^the MCP server fleet is unreachable: /), 'the tools hidden', 15_000, probe);
    await gone.stop();

    // Something that answers only 503 on its port, as a balancer with nothing behind it does.
    const seen: Array<{ at: number; method: string }> = [];
    const stub = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen.push({ at: clock.now(), method: JSON.parse(body || '{}').method });
        res.writeHead(503).end();
      });
    });
    await new Promise<void>((resolve) => stub.listen(port(gone.address), '127.0.0.1', resolve));
    owned(stub, (s) => new Promise((resolve) => s.close(resolve)));
    // Six seconds of the host's clock, one probe round at a time (the next is set once the last was answered).
    const start = clock.now();
    while (clock.now() < start + 6_000) await probe();
    const window = seen.filter((request) => request.at >= start + 2_000 && request.at < start + 6_000);
    // Every 0.5 to 0.75 s: 5 to 8 in 4 s, give or take the edges (a growing backoff sends 1 or 2).
    expect(window.length).toBeGreaterThanOrEqual(4);
    expect(window.length).toBeLessThanOrEqual(9);
    expect(new Set(seen.map((request) => request.method))).toEqual(new Set(['ping']));
    expect(fleet(remote.explain())).toMatchObject({ state: 'unreachable', restarts: 0 });
  });
});

describe('a stateful replica that died', () => {
  it('leaves a session the next replica does not know: toolshed initializes a new one, and calls work', {
    timeout: 60_000,
  }, async () => {
    const [a, b] = [await replica({ stateless: false }), await replica({ stateless: false })];
    const lb = await balancer([a.address, b.address], 'first');
    // Sessions are the 2025 revision's (2026-07-28 has none). The second host is never probed in this test: its calls
    // meet the 404.
    const remote = await host(lb.url, { protocol: 'legacy' });
    const unprobed = await host(lb.url, { protocol: 'legacy', probeIntervalMs: 600_000 });
    expect(fleet(remote.explain()).protocolVersion).toBe('2025-11-25');
    expect(await remote.call('echo', { on: 'a' })).toMatchObject({ ok: true });
    expect(await unprobed.call('echo', { on: 'a' })).toMatchObject({ ok: true });

    a.kill();
    // No call: the probe meets the other replica's 404 "Session not found", and a new session follows.
    await until(
      remote,
      (report) => fleet(report).state === 'connected' && fleet(report).restarts === 1,
      'a new session',
      20_000,
    );
    expect(await remote.call('echo', { on: 'b' })).toMatchObject({ ok: true });

    // A call that meets the 404 fails alone (it did not run, and is not resent); the next calls use a new session.
    expect(await unprobed.call('echo', { on: 'b' })).toMatchObject({
      ok: false,
      code: 'TOOL_UNREACHABLE',
      message:
        'echo did not reach its server: the MCP server fleet: it no longer knows the session (404); a new one is being initialized',
    });
    await until(
      unprobed,
      (report) => fleet(report).state === 'connected' && fleet(report).restarts === 1,
      'a new session',
      20_000,
    );
    expect(await unprobed.call('echo', { on: 'b' })).toMatchObject({ ok: true });
  });
});
