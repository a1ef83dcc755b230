/**
 * The host survives every message a worker, a child or a frame can send.
 * Plugin code shares the port its worker hands the host its RPC port on (thread
 * tier), and can write frames onto the child's channel (process tier): each message is checked (shape,
 * `instanceof MessagePort`) before use, dropped and counted when it fails
 * (explain's `pool.messagesDropped`), and replies are matched to tasks by an
 * unguessable id, so a plugin cannot answer another call with a forged reply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { ATTACKER, call, expectHealthy, untrustedOptions } from './helpers.js';

/** Nine malformed messages: see the fixture's post_malformed. */
const MALFORMED = 9;

const pool = (host: ToolHost) => host.explain().plugins[0]!.pool!;

// One host for the two thread-tier kinds of attack (each counts the drops from its own start):
// trusted, the plugin runs in the host's own process, where a throw on its message would end the host.
let threadHost: Promise<ToolHost> | undefined;
const withThreadHost = async (fn: (host: ToolHost) => Promise<void>) =>
  fn(await (threadHost ??= createToolHost(untrustedOptions([{ package: ATTACKER, trust: 'trusted' }]))));
afterAll(async () => {
  await (await threadHost)?.close();
});

describe('malformed messages from a thread-tier worker', () => {
  it('are dropped and counted; the host process survives and the next call works', async () => {
    await withThreadHost(async (host) => {
      const before = pool(host).messagesDropped;
      expect(await call(host, 'post_malformed')).toEqual({ posted: MALFORMED });
      await expect.poll(() => pool(host).messagesDropped - before).toBe(MALFORMED);
      expect(pool(host).lastDropped).toMatch(/on the parent port/);
      await expectHealthy(host);
    });
  });
});

describe("malformed messages on a thread-tier worker's inline port", () => {
  it('are coerced or dropped and counted; a forged nested call is refused; the host survives and the next calls work', async () => {
    // Plugin code can find the port by patching MessagePort.prototype.postMessage in its worker.
    await withThreadHost(async (host) => {
      const before = pool(host).messagesDropped;
      expect(await call(host, 'post_malformed_inline')).toEqual({ posted: 10 });
      // 'a string', 42, null, [1,2,3]; the call with a string id; a done that is not an array;
      // and four of the five entries of the done list (the fifth is well-formed, for no one).
      await expect.poll(() => pool(host).messagesDropped - before).toBe(10);
      expect(pool(host).lastDropped).toMatch(/inline/);
      await expectHealthy(host);
      expect(await call(host, 'uptime')).toMatchObject({ uptime: expect.any(Number) });
    });
  });
});

describe('malformed messages and frames in the process tier', () => {
  let host: ToolHost;
  beforeAll(async () => {
    // These attacks kill the child on purpose, many times over: the circuit breaker (tested in
    // test/dispatch/circuit-breaker.test.ts) would rightly take the plugin out of service.
    host = await createToolHost(
      untrustedOptions([{ package: ATTACKER }], { config: { limits: { threads: 2, breaker: { failures: 0 } } } }),
    );
  });
  afterAll(() => host.close());

  it("plugin code runs on the child's main thread: there is no parent port to post on, and the child lives on", async () => {
    const first = (await call(host, 'uptime')).uptime as number;
    const before = pool(host).messagesDropped;
    expect(await call(host, 'post_malformed')).toEqual({ posted: 0, parentPort: null });
    expect(pool(host).messagesDropped - before).toBe(0);
    // The same process: its uptime kept counting.
    expect((await call(host, 'uptime')).uptime).toBeGreaterThan(first);
    await expectHealthy(host);
  });

  it('a frame of each malformed kind is dropped, counted, and costs only the child (TOOL_CRASHED)', async () => {
    const frames = [
      { type: 'reply', id: 7, reply: { ok: true, value: { text: 'x', originalLength: 1 } } },
      { type: 'ready' },
      { type: 'no-such-frame' },
      'not an object',
    ];
    for (const frame of frames) {
      const before = pool(host).messagesDropped;
      const out = await call(host, 'write_frame', { frame });
      // The child is killed for the violation; the call it carried reports the crash.
      expect(out.code, JSON.stringify(frame)).toBe('TOOL_CRASHED');
      expect(out.error).toContain('sent an invalid frame');
      expect(pool(host).messagesDropped - before).toBe(1);
      expect(pool(host).lastDropped).toMatch(/^invalid frame: /);
      await expectHealthy(host);
    }
  });

  it('a reply frame for a task id it guessed does not answer another running call', async () => {
    // On a host whose task ids count up from 1, this answers the slow call with 'forged'.
    const genuine = host.dispatch('slow_echo', { ms: 1_500 });
    // The genuine call is running before the replies are forged.
    await expect.poll(() => pool(host).inFlight).toBe(1);
    await call(host, 'forge_replies', { from: 1, to: 5_000 });
    const text = await genuine;
    expect(text).not.toBe('forged');
    await expectHealthy(host);
  });

  it('well-formed replies with guessed string ids are ignored: the running call gets its own answer and the child lives on', async () => {
    const first = (await call(host, 'uptime')).uptime as number;
    const genuine = host.dispatch('slow_echo', { ms: 1_500 });
    // The genuine call is running before the replies are forged.
    await expect.poll(() => pool(host).inFlight).toBe(1);
    expect(await call(host, 'forge_replies', { from: 1, to: 5_000, strings: true })).toBe('sent');
    expect(await genuine).toBe('genuine');
    expect((await call(host, 'uptime')).uptime).toBeGreaterThan(first);
  });
});
