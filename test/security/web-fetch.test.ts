/**
 * web_fetch is a trusted builtin that anyone who can call it (the model, an
 * untrusted plugin granted it) can point anywhere: it must not reach the
 * host's own network. Loopback, private, link-local (cloud metadata),
 * carrier-grade NAT and unique-local addresses are refused, checked after DNS
 * resolution and on every redirect; an operator may allow ranges
 * (WEB_FETCH_ALLOW_CIDRS). Real servers on loopback addresses only: the
 * other ranges are checked without sending anything.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDir, withHost } from '../helpers.js';

interface Server {
  port: number;
  hits: string[];
  close(): Promise<void>;
}

async function serve(host: string, routes: Record<string, (res: http.ServerResponse) => void>): Promise<Server> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    const route = routes[req.url ?? ''];
    if (route) route(res);
    else res.writeHead(404).end('no');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let internal: Server;
let allowed: Server;

beforeAll(async () => {
  // The "internal service": must never be reached.
  internal = await serve('127.0.0.1', {
    '/secret': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('internal secret'),
  });
  // A server in a range the operator allows (127.0.0.2), which redirects into the internal one.
  allowed = await serve('127.0.0.2', {
    '/ok': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('allowed page'),
    '/to-literal': (res) => res.writeHead(302, { location: `http://127.0.0.1:${internal.port}/secret` }).end(),
    '/to-name': (res) => res.writeHead(301, { location: `http://localhost:${internal.port}/secret` }).end(),
    '/to-mapped': (res) => res.writeHead(307, { location: `http://[::ffff:127.0.0.1]:${internal.port}/secret` }).end(),
  });
});
afterAll(async () => {
  await internal.close();
  await allowed.close();
});

const options = (env: Record<string, string> = {}) => ({
  cwd: scratchDir(),
  env: { PATH: process.env.PATH, ...env },
  config: { enable: ['web'] },
});

async function fetchVia(host: { dispatch(name: string, args: unknown): Promise<string> }, url: string): Promise<any> {
  return JSON.parse(await host.dispatch('web_fetch', { url }));
}

describe('web_fetch and the host network', () => {
  it('refuses loopback by address literal, by a name that resolves to it, and as IPv4-mapped IPv6; nothing reaches the server', async () => {
    await withHost(options(), async (host) => {
      for (const url of [
        `http://127.0.0.1:${internal.port}/secret`,
        `http://localhost:${internal.port}/secret`,
        `http://[::ffff:127.0.0.1]:${internal.port}/secret`,
      ]) {
        const out = await fetchVia(host, url);
        expect(out.code, url).toBe('TOOL_FAILED');
        expect(out.error, url).toMatch(
          /is not on the public internet \(127\.0\.0\.1 is a loopback address\).*WEB_FETCH_ALLOW_CIDRS/,
        );
      }
      expect(internal.hits).toEqual([]);
    });
  });

  it('an operator-allowed range is fetched, but a redirect out of it into the host network is refused at that hop', async () => {
    await withHost(options({ WEB_FETCH_ALLOW_CIDRS: '127.0.0.2/32' }), async (host) => {
      expect(await fetchVia(host, `http://127.0.0.2:${allowed.port}/ok`)).toMatchObject({
        status: 200,
        content: 'allowed page',
      });
      for (const path of ['/to-literal', '/to-name', '/to-mapped']) {
        const out = await fetchVia(host, `http://127.0.0.2:${allowed.port}${path}`);
        expect(out.code, path).toBe('TOOL_FAILED');
        expect(out.error, path).toContain('is not on the public internet');
      }
      expect(allowed.hits).toEqual(['/ok', '/to-literal', '/to-name', '/to-mapped']);
      expect(internal.hits).toEqual([]);
    });
  });

  it('allowing the range lets the internal server be fetched, redirects included (the allow-list is the only way in)', async () => {
    await withHost(options({ WEB_FETCH_ALLOW_CIDRS: '127.0.0.0/8' }), async (host) => {
      expect(await fetchVia(host, `http://127.0.0.2:${allowed.port}/to-literal`)).toMatchObject({
        status: 200,
        content: 'internal secret',
        finalUrl: `http://127.0.0.1:${internal.port}/secret`,
      });
    });
    internal.hits.length = 0;
  });

  it('classifies every private, metadata and special range as refused and public unicast as allowed (no traffic)', async () => {
    // The web plugin is JavaScript without declarations; its guard is imported by path.
    const guard = '../../plugins/web/lib/address-guard.js';
    const { addressRefusal, parseAllowed } = (await import(guard)) as {
      addressRefusal(address: string, allowed: unknown[]): string | undefined;
      parseAllowed(value: string | undefined): unknown[];
    };
    const none = parseAllowed(undefined);
    for (const address of [
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.100.100.200',
      '192.0.0.192',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '::1',
      '::',
      'fd00:ec2::254',
      'fe80::1',
      '::ffff:10.0.0.1',
    ]) {
      expect(addressRefusal(address, none), address).toBeDefined();
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])
      expect(addressRefusal(address, none), address).toBeUndefined();
    const some = parseAllowed('10.0.0.0/8, fd00::/8 192.168.1.7');
    expect(addressRefusal('10.20.30.40', some)).toBeUndefined();
    expect(addressRefusal('fd00:ec2::254', some)).toBeUndefined();
    expect(addressRefusal('192.168.1.7', some)).toBeUndefined();
    expect(addressRefusal('192.168.1.8', some)).toBe('192.168.1.8 is a private address');
    expect(() => parseAllowed('10.0.0.0/8,not-a-range')).toThrow(/WEB_FETCH_ALLOW_CIDRS has "not-a-range"/);
  });
});
