import { afterAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fixtureOptions, tempDir, withHost } from '../helpers.js';

const parse = (text: string) => JSON.parse(text) as { error: string; code: string };

// The tests that need the same limits share one host (each started by the first that needs it):
// one with the default limits, one with a single thread working in `work` (where `patient` writes).
const work = tempDir();
const hosts: Array<Promise<ToolHost>> = [];
let plain: Promise<ToolHost> | undefined;
let oneThread: Promise<ToolHost> | undefined;
const plainHost = () => (plain ??= started(createToolHost(fixtureOptions(['kitchen']))));
const oneThreadHost = () =>
  (oneThread ??= started(
    createToolHost(fixtureOptions(['kitchen'], { cwd: work.dir, config: { limits: { threads: 1 } } })),
  ));
function started(host: Promise<ToolHost>): Promise<ToolHost> {
  hosts.push(host);
  return host;
}
afterAll(async () => {
  for (const host of hosts) await (await host).close();
  work.cleanup();
});

describe('a handler that misbehaves in a real Piscina worker', () => {
  it('loops forever: TOOL_TIMEOUT within its limit, then the next call succeeds on a fresh worker', async () => {
    const host = await oneThreadHost();
    const before = JSON.parse(await host.dispatch('thread', {}));
    const out = parse(await host.dispatch('loop', {}));
    expect(out.code).toBe('TOOL_TIMEOUT');
    expect(out.error).toContain('400 ms');
    const after = JSON.parse(await host.dispatch('thread', {}));
    expect(after.isMainThread).toBe(false);
    // The looping worker was terminated, so the pool's only thread is a new one.
    expect(after.threadId).not.toBe(before.threadId);
  });

  it('allocates without bound: TOOL_CRASHED naming the memory limit, host alive', async () => {
    await withHost(fixtureOptions(['kitchen'], { config: { limits: { memoryMb: 32, threads: 1 } } }), async (host) => {
      const out = parse(await host.dispatch('oom', {}));
      expect(out.code).toBe('TOOL_CRASHED');
      expect(out.error).toContain('out of memory');
      expect(out.error).toContain('32 MB');
      expect(await host.dispatch('text', {})).toBe('plain text');
    });
  });

  it('calls process.exit: TOOL_CRASHED, and the host keeps serving', async () => {
    const host = await plainHost();
    const out = parse(await host.dispatch('exit', {}));
    expect(out.code).toBe('TOOL_CRASHED');
    expect(out.error).toContain('exited');
    expect(await host.dispatch('text', {})).toBe('plain text');
  });

  it('is cancelled by the caller signal: TOOL_CANCELLED', async () => {
    const host = await plainHost();
    const controller = new AbortController();
    const pending = host.dispatch('slow', { ms: 20_000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(parse(await pending).code).toBe('TOOL_CANCELLED');
  });

  it('aborts ctx.signal on timeout so cooperative code cleans up, without killing the worker', async () => {
    const host = await oneThreadHost();
    const { threadId } = JSON.parse(await host.dispatch('thread', {}));
    expect(parse(await host.dispatch('patient', {})).code).toBe('TOOL_TIMEOUT');
    expect(readFileSync(path.join(work.dir, 'cleanup.txt'), 'utf8')).toBe(`TOOL_TIMEOUT in thread ${threadId}`);
    expect(JSON.parse(await host.dispatch('thread', {})).threadId).toBe(threadId);
  });

  it('passes a caller cancel to ctx.signal in the worker', async () => {
    const host = await oneThreadHost();
    const { threadId } = JSON.parse(await host.dispatch('thread', {}));
    const controller = new AbortController();
    let running!: () => void;
    const isRunning = new Promise<void>((resolve) => (running = resolve));
    const pending = host.dispatch('patient', {}, { signal: controller.signal, onLog: () => running() });
    await isRunning;
    controller.abort();
    expect(parse(await pending).code).toBe('TOOL_CANCELLED');
    expect(readFileSync(path.join(work.dir, 'cleanup.txt'), 'utf8')).toBe(`TOOL_CANCELLED in thread ${threadId}`);
  });

  it('overflows the queue: QUEUE_FULL past threads + maxQueue, the others complete', async () => {
    const host = await createToolHost(fixtureOptions(['kitchen'], { config: { limits: { threads: 1, maxQueue: 1 } } }));
    try {
      const calls = [
        host.dispatch('slow', { ms: 300 }),
        host.dispatch('slow', { ms: 300 }),
        host.dispatch('slow', { ms: 300 }),
      ];
      const results = await Promise.all(calls);
      expect(results.filter((r) => r === 'waited 300')).toHaveLength(2);
      const full = results.find((r) => r !== 'waited 300')!;
      expect(parse(full).code).toBe('QUEUE_FULL');
      expect(await host.dispatch('slow', { ms: 1 })).toBe('waited 1');
    } finally {
      await host.close();
    }
  });
});
