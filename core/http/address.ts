/** `--http HOST:PORT` parsing and the loopback test that guards binding. */
import net from 'node:net';
import { UsageError } from '../../boundary/errors.js';

/** Where the HTTP server listens. */
export interface ListenAddress {
  host: string;
  port: number;
}

/** Parses `HOST:PORT`, `[v6]:PORT` or a bare `PORT` (meaning 127.0.0.1); port 0 picks a free one. */
export function parseListenAddress(value: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d+)$/.exec(value) ?? /^()()(\d+)$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port > 65535) {
    throw new UsageError(`--http expects HOST:PORT (e.g. 127.0.0.1:3333), got '${value}'`);
  }
  return { host: match[1] || match[2] || '127.0.0.1', port };
}

/** True for localhost, 127.0.0.0/8 and ::1: addresses no other machine can reach. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (net.isIPv4(host)) return host.startsWith('127.');
  if (net.isIPv6(host)) return host === '::1' || /^::ffff:127\./i.test(host);
  return false;
}
