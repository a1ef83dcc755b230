/**
 * Cases 10 and 11 and the channel: host RPC works across the process
 * boundary (log, progress, callTool), Comlink GET/SET/CONSTRUCT aimed at the
 * host are refused by the same allow-list guard as the thread tier, hostile
 * argument keys pollute nothing, and garbage on the channel costs only the
 * child its life.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { ATTACKER, call, expectHealthy, untrustedOptions } from './helpers.js';

describe('RPC across the process boundary', () => {
  let host: ToolHost;
  beforeAll(async () => {
    host = await createToolHost(untrustedOptions([{ package: ATTACKER }]));
  });
  afterAll(() => host.close());

  it('ctx.log, ctx.progress and ctx.callTool reach the host from the child', async () => {
    const logs: string[] = [];
    const progress: Array<[number, number | undefined]> = [];
    const text = await host.dispatch(
      'across',
      {},
      { onLog: (m) => logs.push(m), onProgress: (d, t) => progress.push([d, t]) },
    );
    const out = JSON.parse(text);
    expect(out.nested).toBe('pong');
    expect(logs).toContain('hello from the child');
    expect(progress).toEqual([
      [1, 2],
      [2, 2],
    ]);
  });

  it('case 10: Comlink GET, SET, CONSTRUCT, ENDPOINT and proxy arguments aimed at the host are refused', async () => {
    const refusedBefore = host.explain().plugins[0]!.pool!.guardRefused;
    const out = await call(host, 'comlink_attack');
    // Written straight onto the channel to the host: the host's guard refuses every one.
    expect(out.written.every((w: { allowed: boolean }) => w.allowed)).toBe(true);
    // There is no relay inside the child to attack: it runs plugin code on its main thread, which has no parent port.
    expect(out.relayReplies).toBeNull();
    expect(host.explain().plugins[0]!.pool!.guardRefused - refusedBefore).toBe(6);
    // The host's API is intact: nested calls still go through dispatch.
    expect(JSON.parse(await host.dispatch('across', {})).nested).toBe('pong');
    await expectHealthy(host);
  });

  it('case 11: __proto__ and constructor keys in arguments pollute no prototype, in the child or the host', async () => {
    const raw = '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}}}';
    const out = await call(host, 'inspect_args', raw);
    expect(out).toEqual({
      ownKeys: ['__proto__', 'constructor'],
      protoIsObjectPrototype: true,
      polluted: false,
      constructorIsObject: true,
    });
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    await expectHealthy(host);
  });

  it('garbage written onto the channel kills only the child (TOOL_CRASHED); the host survives', async () => {
    const out = await call(host, 'channel_garbage');
    expect(out.code).toBe('TOOL_CRASHED');
    expect(out.error).toContain('broke the channel protocol');
    await expectHealthy(host);
  });

  it('a frame announced at 4 GB is refused from its header, before any of it is buffered', async () => {
    const out = await call(host, 'channel_oversize');
    expect(out.code).toBe('TOOL_CRASHED');
    expect(out.error).toMatch(/a 4294967295-byte frame exceeds the \d+-byte limit/);
    await expectHealthy(host);
  });
});
