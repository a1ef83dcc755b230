/**
 * A long shell command does not hold the thread other calls need: the first-party
 * terminal's calls wait on child processes, so its pool (one of its own) runs
 * several of them per real Piscina worker. With one thread, a quick command
 * finishes while a long one still runs, and each call keeps its own timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { tempDir } from '../helpers.js';

const work = tempDir();
let host: ToolHost;

beforeAll(async () => {
  host = await createToolHost({
    cwd: work.dir,
    config: { cache: { enabled: false }, enable: ['terminal'], limits: { threads: 1, timeoutMs: 20_000 } },
  });
}, 60_000);

afterAll(async () => {
  await host?.close();
  work.cleanup();
});

const output = (reply: string) => (JSON.parse(reply) as { output?: string; code?: string }).output;

describe("the terminal's calls and the pool's threads", () => {
  it('runs a quick command while a long one holds the only thread, and says why in explain', async () => {
    const order: string[] = [];
    const long = host.dispatch('terminal', { command: 'sleep 4; echo long' }).then((reply) => {
      order.push('long');
      return reply;
    });
    // The long command holds the pool's only thread before the quick one is sent.
    await expect
      .poll(() => host.explain().plugins.find((p) => p.name === '@toolshed/terminal')?.pool?.inFlight)
      .toBe(1);
    const quick = await host.dispatch('terminal', { command: 'echo quick' });
    order.push('quick');
    expect(output(quick)).toBe('quick\n');
    expect(output(await long)).toBe('long\n');
    expect(order).toEqual(['quick', 'long']);
    const pool = host.explain().plugins.find((p) => p.name === '@toolshed/terminal')?.pool;
    expect(pool).toMatchObject({
      kind: 'own',
      threads: 1,
      reason: expect.stringContaining('its calls wait on child processes'),
    });
  }, 60_000);

  it("keeps each call's own timeout: one times out while another on the same worker completes, and the next call works", async () => {
    const [stuck, fine] = await Promise.all([
      host.dispatch('terminal', { command: 'sleep 30', timeoutMs: 1_000 }),
      host.dispatch('terminal', { command: 'sleep 0.5; echo fine' }),
    ]);
    expect(JSON.parse(stuck)).toMatchObject({ timedOut: true });
    expect(output(fine)).toBe('fine\n');
    expect(output(await host.dispatch('terminal', { command: 'echo after' }))).toBe('after\n');
  }, 60_000);
});
