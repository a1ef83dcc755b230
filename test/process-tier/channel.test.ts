/**
 * The process tier's channel (sandbox/process/channel.ts): frames to the child on its
 * stdin, from it on fd 3 written with `fs` (child/fd-writer.ts), so that no `net` socket
 * is needed in the child (Node 25+'s permission model refuses one without --allow-net).
 * Real children: large frames cross both ways intact, and a child that leaves on its
 * own (process.exit, an uncaught exception) is reported at once as TOOL_CRASHED, not
 * left hanging until its deadline.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { FdWriter } from '#internal/sandbox/child/fd-writer.js';
import { fixture } from '../helpers.js';
import { call, untrustedOptions } from '../security/helpers.js';

const LEAVER = fixture('process-tier', 'leaver');

describe('a real child on this Node', () => {
  let host: ToolHost;
  beforeAll(async () => {
    // A long timeout: a child that fails to exit would show as TOOL_TIMEOUT after it, not as a fast TOOL_CRASHED.
    host = await createToolHost(
      untrustedOptions([{ package: LEAVER }], { config: { limits: { timeoutMs: 20_000, maxResultChars: 4_000_000 } } }),
    );
  });
  afterAll(() => host.close());

  it('starts under the permission model without --allow-net, and answers', async () => {
    expect(host.explain().plugins[0]!.protections).toMatchObject({ permissionModel: true });
    expect(await host.dispatch('ping', {})).toBe('pong');
  });

  it('carries a 3 MB reply (many pipe buffers) intact and in order', async () => {
    const n = 3_000_000;
    const text = await host.dispatch('big', { n });
    expect(text.length).toBe(n);
    expect(text).toBe(Array.from({ length: n }, (_, i) => i % 10).join(''));
  });

  it('carries a 1 MB argument to the child intact', async () => {
    const text = `${'ab'.repeat(500_000)}the-end!`;
    expect(await call(host, 'length', { text })).toEqual({ length: text.length, tail: 'the-end!' });
  });

  it('a handler calling process.exit ends its child at once: TOOL_CRASHED with the exit code, then a fresh child answers', async () => {
    const started = Date.now();
    const out = await call(host, 'exit');
    expect(out.code).toBe('TOOL_CRASHED');
    expect(out.error).toContain('exited with code 3');
    // Far below the 20 s timeout: the exit was not held up by the channel (a blocking read would hold it forever).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await host.dispatch('ping', {})).toBe('pong');
  });

  it('an uncaught exception ends its child at once: TOOL_CRASHED, then a fresh child answers', async () => {
    const started = Date.now();
    const out = await call(host, 'throw_later');
    expect(out.code).toBe('TOOL_CRASHED');
    expect(out.error).toContain('thrown from a timer');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await host.dispatch('ping', {})).toBe('pong');
  });
});

describe('FdWriter on a non-blocking fd whose reader is slow', () => {
  it('writes everything, in order, through EAGAIN and partial writes', async () => {
    // A connected pair of loopback sockets: libuv leaves the client's fd non-blocking, as an fd passed that way would
    // be.
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
    const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    await new Promise<void>((resolve) => client.once('connect', resolve));
    const reader = await accepted;
    reader.pause();
    const fd = (client as unknown as { _handle: { fd: number } })._handle.fd;
    expect(fd).toBeGreaterThan(2);
    const errors: Error[] = [];
    const writer = new FdWriter(fd, (error) => errors.push(error));
    // 16 chunks of 512 KB, each filled with its index: far more than the socket buffers hold while the reader is
    // paused.
    const chunks = Array.from({ length: 16 }, (_, i) => Buffer.alloc(512 * 1024, i));
    for (const chunk of chunks) writer.write(chunk);
    // The reader is paused: the writer must be waiting on EAGAIN (its retry backing off) with most of the bytes still
    // queued, not failed.
    await expect.poll(() => (writer as unknown as { retryMs: number }).retryMs).toBeGreaterThan(1);
    expect(errors).toEqual([]);
    expect(writer.pendingBytes).toBeGreaterThan(0);
    const received: Buffer[] = [];
    let total = 0;
    const all = chunks.reduce((sum, c) => sum + c.length, 0);
    await new Promise<void>((resolve) => {
      reader.on('data', (data: Buffer) => {
        received.push(data);
        total += data.length;
        if (total >= all) resolve();
      });
      reader.resume();
    });
    expect(errors).toEqual([]);
    // The last write's callback may run just after its bytes arrived here.
    await expect.poll(() => writer.pendingBytes).toBe(0);
    expect(Buffer.concat(received).equals(Buffer.concat(chunks))).toBe(true);
    client.destroy();
    reader.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
