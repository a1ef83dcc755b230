/**
 * Streamable HTTP servers as toolsets, and toolshed on machine B as a
 * toolset of toolshed on machine A ("tools on a fleet"): the tools cross,
 * list changes cross both hops, only the configured URL is ever requested,
 * and a server that goes away hides its tools until it is back.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProxyServer } from 'http-proxy-3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolHost } from 'toolshed';
import { serveHttp, type HttpEndpoint } from 'toolshed/mcp';
import { DYNAMIC, exposedNames, server, serversHost, until } from './setup.js';

let machineB: ToolHost;
let endpointB: HttpEndpoint;
const closers: Array<() => Promise<unknown>> = [];

function listen(handler: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  const srv = http.createServer(handler);
  closers.push(() => new Promise((resolve) => srv.close(resolve)));
  return new Promise((resolve) =>
    srv.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, server: srv }),
    ),
  );
}

beforeAll(async () => {
  // Machine B: a toolshed whose tools come from a stdio MCP server, served over HTTP.
  // definitionChanges 'accept' on both machines: tools added at run time pass through (else each holds them until
  // accepted).
  machineB = await serversHost({ dynamic: { command: 'node', args: [DYNAMIC], definitionChanges: 'accept' } });
  endpointB = await serveHttp(machineB, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await endpointB?.close();
  await machineB?.close();
  for (const close of closers) await close();
});

describe('toolshed serve --http on machine B as an mcpServers entry on machine A', () => {
  it("brings B's tools to A, callable, with A's list following changes on B", async () => {
    const machineA = await serversHost({ fleet: { url: endpointB.url, definitionChanges: 'accept' } });
    try {
      const report = await machineA.refresh();
      expect(server(report, 'fleet')).toMatchObject({
        transport: 'http',
        state: 'connected',
        target: endpointB.url,
        server: { name: 'toolshed' },
      });
      expect(report.plugins.find((p) => p.name === 'mcp:fleet')).toMatchObject({ tier: 'remote', trust: 'untrusted' });
      // explain says what holds it: nothing on this machine, where its code does not run.
      const how = 'its code runs on another machine, reached only at its URL';
      expect(report.plugins.find((p) => p.name === 'mcp:fleet')!.permissions!.enforced).toEqual({
        fs: { by: 'host', read: [], write: [], how },
        network: { by: 'host', allowed: true, how },
        env: { by: 'host', names: [], how },
      });
      expect(server(report, 'fleet').protections).toBeUndefined();
      expect(await exposedNames(machineA)).toEqual(expect.arrayContaining(['add_tool', 'slow', 'stats']));
      expect(JSON.parse(await machineA.dispatch('stats', {}))).toMatchObject({ cancelled: expect.any(Number) });

      // A tool added on the far end: dynamic → B (stdio list_changed) → A (HTTP list_changed) → A's 'change'.
      await machineA.dispatch('add_tool', { name: 'from_the_fleet' });
      await until(machineA, (r) => r.tools.some((t) => t.name === 'from_the_fleet' && t.exposed), 'the new tool on A');
      expect(await machineA.dispatch('from_the_fleet', {})).toBe('added from_the_fleet answers');
    } finally {
      await machineA.close();
    }
  });

  it('sends the configured headers with every request (an authenticating proxy in front of B)', async () => {
    const proxy = createProxyServer({ target: endpointB.url.replace(/\/mcp$/, ''), changeOrigin: true });
    const seen: string[] = [];
    const gate = await listen((req, res) => {
      seen.push(String(req.headers.authorization));
      if (req.headers.authorization !== 'Bearer fleet-token') return void res.writeHead(401).end();
      proxy.web(req, res);
    });
    closers.push(async () => proxy.close());
    const machineA = await serversHost({
      gated: { url: `${gate.url}/mcp`, headers: { Authorization: 'Bearer fleet-token' } },
    });
    try {
      expect(server(machineA.explain(), 'gated').state).toBe('connected');
      expect(await machineA.dispatch('add_tool', { name: 'through_the_gate' })).toBe('registered through_the_gate');
      expect(seen.length).toBeGreaterThan(1);
      expect(new Set(seen)).toEqual(new Set(['Bearer fleet-token']));
    } finally {
      await machineA.close();
    }
  });
});

describe('only the configured URL', () => {
  it('never follows a redirect, not even within the origin', async () => {
    let reached = 0;
    const elsewhere = await listen((_req, res) => {
      reached++;
      res.writeHead(404).end();
    });
    const redirector = await listen((_req, res) => res.writeHead(307, { location: `${elsewhere.url}/mcp` }).end());
    const sameOrigin = await listen((req, res) =>
      req.url === '/mcp' ? res.writeHead(307, { location: '/other' }).end() : (reached++, res.writeHead(404).end()),
    );
    const machineA = await serversHost({
      away: { url: `${redirector.url}/mcp` },
      near: { url: `${sameOrigin.url}/mcp` },
    });
    try {
      for (const name of ['away', 'near']) {
        const report = server(machineA.explain(), name);
        expect(report.state).toBe('handshake failed');
        expect(report.reason).toContain('307');
        expect(report.reason).toContain('toolshed requests only the configured URL');
      }
      expect(reached).toBe(0);
    } finally {
      await machineA.close();
    }
  });
});

describe('a remote server that goes away', () => {
  it('hides its tools with the reason, and reconnects once it is back', async () => {
    const hostC = await serversHost({ dynamic: { command: 'node', args: [DYNAMIC] } });
    let endpointC = await serveHttp(hostC, { host: '127.0.0.1', port: 0 });
    const port = Number(new URL(endpointC.url).port);
    const machineA = await serversHost({ far: { url: endpointC.url } });
    try {
      expect(server(machineA.explain(), 'far').state).toBe('connected');
      await endpointC.close();
      // The call fails alone (a transport error is no crash); the probe it starts finds the server gone.
      const outcome = await machineA.call('stats', {});
      expect(outcome).toMatchObject({ ok: false, code: 'TOOL_UNREACHABLE' });
      expect(outcome.ok === false && outcome.message).toMatch(
        /^stats did not reach its server: the MCP server far: .+$/,
      );
      const down = await until(
        machineA,
        (r) => r.tools.find((t) => t.name === 'stats')?.exposed === false,
        'stats hidden',
      );
      expect(down.tools.find((t) => t.name === 'stats')!.reason).toMatch(
        /^the MCP server far is unreachable: .+; reconnecting as soon as it answers a probe \(one every 1 s to 1\.5 s\)$/,
      );

      endpointC = await serveHttp(hostC, { host: '127.0.0.1', port });
      await until(machineA, (r) => server(r, 'far').state === 'connected', 'the reconnect');
      expect(server(machineA.explain(), 'far').restarts).toBeGreaterThan(0);
      expect(JSON.parse(await machineA.dispatch('stats', {}))).toEqual({ calls: 0, cancelled: 0 });
    } finally {
      await machineA.close();
      await endpointC.close();
      await hostC.close();
    }
  });
});
