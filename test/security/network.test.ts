/**
 * Case 12 and the network grant: a plugin without the network grant cannot
 * reach a server on the host's loopback (its own network namespace and, on
 * Node 25+, Node's permission model without --allow-net); a
 * plugin that asks for the network without the grant has its tools hidden;
 * with the grant it connects. `explain` says which protections are in force.
 */
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixture, tempDir, withHost } from '../helpers.js';
import { ATTACKER, call, expectHealthy, untrustedOptions } from './helpers.js';

let server: net.Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  server = net.createServer((socket) => {
    connections++;
    // The plugin's side may vanish mid-reply (its child is killed at close): a reset here is expected.
    socket.on('error', () => {});
    socket.end('hello from the host\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('case 12: network without the grant', () => {
  let host: ToolHost;
  beforeAll(async () => {
    host = await createToolHost(untrustedOptions([{ package: ATTACKER }]));
  });
  afterAll(() => host.close());

  it('cannot connect to a loopback server of the host (or says plainly that it can, where namespaces are missing)', async () => {
    const protections = host.explain().plugins[0]!.protections!;
    const before = connections;
    const out = await call(host, 'connect', { host: '127.0.0.1', port });
    if (protections.netNamespace || protections.netPermission) {
      expect(out.connected).toBe(false);
      expect(connections).toBe(before);
    } else {
      console.warn(
        `[security] NO network namespace on this machine (${protections.reason}): an untrusted plugin without the network grant CAN reach the host's loopback. See docs/security.md.`,
      );
      expect(protections.reason).toBeTruthy();
      expect(out.connected).toBe(true);
    }
    await expectHealthy(host);
  });

  it('where namespaces are missing (forced off here), the gap is stated in explain and the output, never hidden', async () => {
    const saved = process.env.TOOLSHED_SANDBOX_NAMESPACES;
    process.env.TOOLSHED_SANDBOX_NAMESPACES = 'off';
    try {
      await withHost(untrustedOptions([{ package: ATTACKER }]), async (fallback) => {
        const protections = fallback.explain().plugins[0]!.protections!;
        expect(protections).toMatchObject({ permissionModel: true, netNamespace: false, pidNamespace: false });
        expect(protections.reason).toContain('TOOLSHED_SANDBOX_NAMESPACES=off');
        const before = connections;
        const out = await call(fallback, 'connect', { host: '127.0.0.1', port });
        const enforced = fallback.explain().plugins[0]!.permissions!.enforced.network;
        if (protections.netPermission) {
          // Node 25+: the permission model refuses the network by itself (no --allow-net), namespace or not.
          expect(out).toMatchObject({ connected: false, code: 'ERR_ACCESS_DENIED' });
          expect(connections).toBe(before);
          expect(enforced).toEqual({ by: 'sandbox', allowed: false, how: "Node's permission model (no --allow-net)" });
        } else {
          console.warn(
            `[security] without a network namespace an untrusted plugin without the network grant reaches the host's loopback (connected: ${out.connected}); docs/security.md says so.`,
          );
          expect(out.connected).toBe(true);
          expect(enforced).toBe('declared, not enforced');
        }
        // Whichever it is, this Node's flag set decides it.
        expect(protections.netPermission).toBe(process.allowedNodeEnvironmentFlags.has('--allow-net'));
      });
    } finally {
      if (saved === undefined) delete process.env.TOOLSHED_SANDBOX_NAMESPACES;
      else process.env.TOOLSHED_SANDBOX_NAMESPACES = saved;
    }
  });

  it('cannot fetch either', async () => {
    const protections = host.explain().plugins[0]!.protections!;
    const out = await call(host, 'fetch_url', { url: `http://127.0.0.1:${port}/` });
    const blocked = protections.netNamespace || protections.netPermission;
    if (!blocked)
      console.warn('[security] NO network namespace on this machine: fetch from an untrusted plugin is not blocked.');
    expect(out.fetched).toBe(!blocked);
  });

  it('cannot reach a host service through a Unix domain socket (namespaces do not cover them)', async () => {
    const work = tempDir();
    let unixConnections = 0;
    const socketPath = path.join(work.dir, 'host.sock');
    const unixServer = net.createServer((socket) => {
      unixConnections++;
      socket.on('error', () => {});
      socket.end('host service\n');
    });
    await new Promise<void>((resolve) => unixServer.listen(socketPath, resolve));
    try {
      const out = await call(host, 'unix_socket', { path: socketPath });
      for (const how of [
        'connectOptions',
        'connectString',
        'socketConnect',
        'createConnection',
        'httpSocketPath',
        'listen',
        'listenFd',
      ]) {
        expect(out[how], how).toMatchObject({ allowed: false, code: 'ERR_ACCESS_DENIED' });
      }
      // A getter that hides the path from the first read: the check and the connect see one snapshot.
      expect(out.sneakyGetter.allowed).toBe(false);
      expect(existsSync(`${socketPath}.evil`)).toBe(false);
      await expectHealthy(host);
      expect(unixConnections).toBe(0);
    } finally {
      await new Promise<void>((resolve) => unixServer.close(() => resolve()));
      work.cleanup();
    }
  });

  it('explain reports the protections in force on this machine', () => {
    const plugin = host.explain().plugins[0]!;
    expect(plugin.tier).toBe('process');
    expect(plugin.protections).toMatchObject({ permissionModel: true });
    expect(typeof plugin.protections!.netNamespace).toBe('boolean');
    expect(typeof plugin.protections!.pidNamespace).toBe('boolean');
    if (!plugin.protections!.netNamespace || !plugin.protections!.pidNamespace)
      expect(plugin.protections!.reason).toBeTruthy();
    console.info(`[security] protections on this machine: ${JSON.stringify(plugin.protections)}`);
  });
});

describe('the network grant', () => {
  it('hides every tool of a plugin that requests the network without the grant', async () => {
    await withHost(untrustedOptions([{ package: fixture('security', 'netplugin') }]), async (host) => {
      const state = host.explain().tools.find((t) => t.name === 'net_connect')!;
      expect(state.exposed).toBe(false);
      expect(state.reason).toBe('network access not granted to untrusted plugin toolshed-plugin-net');
      expect(host.explain().plugins[0]!.permissions).toMatchObject({
        requested: { network: true },
        granted: { network: false },
        effective: { network: false },
      });
    });
  });

  it('with the grant the child shares the host network and connects', async () => {
    await withHost(
      untrustedOptions([{ package: fixture('security', 'netplugin'), grant: { network: true } }]),
      async (host) => {
        const plugin = host.explain().plugins[0]!;
        expect(plugin.protections).toMatchObject({ netNamespace: false, netPermission: false });
        expect(plugin.permissions!.enforced.network).toMatchObject({ allowed: true });
        const out = await call(host, 'net_connect', { host: '127.0.0.1', port });
        expect(out).toEqual({ connected: true, data: 'hello from the host\n' });
        // Still its own PID namespace where available: only the network was granted.
        expect(host.explain().plugins[0]!.protections!.pidNamespace).toBe(plugin.protections!.pidNamespace);
      },
    );
  });
});
