/**
 * The front door's pure parts (core/http/): where a path goes on a listener, which Host headers
 * and origins a listener accepts, and what the request log says of a request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { routeOf } from '#internal/core/http/route.js';
import { allowedHosts, hostRefusal, listenerOrigins, urlHost } from '#internal/core/http/access.js';
import { RequestLog, shortSession } from '#internal/core/http/request-log.js';
import { rpcNote } from '#internal/core/mcp-server/http/http-replies.js';

describe('routeOf', () => {
  it('sends a path below the mount to the mount, its prefix without the slash to a redirect', () => {
    expect(routeOf('/ui/api/overview', '/ui/', '/mcp')).toEqual({ kind: 'mount', path: 'api/overview' });
    expect(routeOf('/ui/', '/ui/', '/mcp')).toEqual({ kind: 'mount', path: '' });
    expect(routeOf('/ui', '/ui/', '/mcp')).toEqual({ kind: 'redirect', location: '/ui/' });
  });

  it("sends the endpoint's path to the endpoint, and anything else nowhere", () => {
    expect(routeOf('/mcp', '/ui/', '/mcp')).toEqual({ kind: 'endpoint' });
    expect(routeOf('/mcp/', undefined, '/mcp')).toEqual({ kind: 'none' });
    expect(routeOf('/healthz', undefined, '/mcp')).toEqual({ kind: 'none' });
  });

  it('gives a mount at / every path, with no redirect', () => {
    expect(routeOf('/', '/', '/')).toEqual({ kind: 'mount', path: '' });
    expect(routeOf('/api/calls', '/', '/')).toEqual({ kind: 'mount', path: 'api/calls' });
  });
});

describe("a listener's hosts and origins", () => {
  it('accepts on loopback only its own names and its public URLs, case-insensitively', () => {
    const hosts = allowedHosts('127.0.0.1', 3333, ['https://tools.example/mcp']);
    expect(hostRefusal('LOCALHOST:3333', hosts)).toBeUndefined();
    expect(hostRefusal('[::1]:3333', hosts)).toBeUndefined();
    expect(hostRefusal('tools.example', hosts)).toBeUndefined();
    expect(hostRefusal('tools.example:443', hosts)).toBeUndefined();
    expect(hostRefusal('evil.example:3333', hosts)).toBe('Invalid Host header: "evil.example:3333"');
    expect(hostRefusal(undefined, hosts)).toBe('Invalid Host header: ""');
  });

  it('accepts any Host off loopback', () => {
    expect(allowedHosts('0.0.0.0', 3333, [])).toBeUndefined();
    expect(hostRefusal('anything', undefined)).toBeUndefined();
  });

  it("names the origins of the listener's pages, IPv6 in brackets", () => {
    expect(urlHost('::1')).toBe('[::1]');
    expect([...listenerOrigins('::1', 80, ['https://tools.example/ui/'])]).toEqual([
      'http://127.0.0.1:80',
      'http://localhost:80',
      'http://[::1]:80',
      'https://tools.example',
    ]);
  });
});

describe('the request log', () => {
  const req = (headers: Record<string, string> = {}) =>
    ({ method: 'POST', url: '/mcp?x=1', headers }) as unknown as IncomingMessage;
  const res = (header?: string) => ({ statusCode: 200, getHeader: () => header }) as unknown as ServerResponse;

  it('shows a session by its replica and the first 8 characters of its uuid', () => {
    expect(shortSession('3f2a9c1e-0000-4000-8000-000000000000')).toBe('3f2a9c1e');
    expect(shortSession('r1.3f2a9c1e-0000-4000-8000-000000000000')).toBe('r1.3f2a9c1e');
  });

  it('names what the handler noted, and the session the request named before the one it opened', () => {
    const log = new RequestLog(() => {}, 'mcp-session-id');
    const named = req({ 'mcp-session-id': 'aaaaaaaa-1' });
    log.note(named, rpcNote({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_file' } }));
    log.note(named, { session: 'bbbbbbbb-2' });
    expect(log.entry(named, res(), performance.now(), '127.0.0.1')).toMatchObject({
      method: 'POST',
      path: '/mcp',
      status: 200,
      rpc: 'tools/call',
      tool: 'read_file',
      session: 'aaaaaaaa',
      client: '127.0.0.1',
    });
    const opened = req();
    log.note(opened, { session: 'cccccccc-3' });
    expect(log.entry(opened, res('dddddddd-4'), performance.now(), 'x').session).toBe('cccccccc');
    expect(log.entry(req(), res('dddddddd-4'), performance.now(), 'x').session).toBe('dddddddd');
  });

  it('reads no session header on a listener that names none', () => {
    const log = new RequestLog(() => {}, undefined);
    expect(log.entry(req({ 'mcp-session-id': 'aaaaaaaa-1' }), res(), performance.now(), 'x').session).toBeUndefined();
  });
});
