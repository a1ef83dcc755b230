/**
 * What the shared trusted pool keeps apart, and what it does not. Each task's
 * process.env is its own plugin's grant, but two trusted plugins in one worker
 * share module state and whatever one of them left behind: with a real shared
 * dependency (test/fixtures/security/shared-pool), a plugin granted no env reads
 * the token another plugin's import copied, and a listener it left on the
 * library's emitter reads the other plugin's grant during that plugin's call.
 * Both hold when the operator opts the plugin into the shared pool; by default a
 * plugin holding env grants runs in a pool of its own and neither leaks.
 */
import { describe, expect, it } from 'vitest';
import type { ToolHostOptions } from 'toolshed';
import { fixture, withHost } from '../helpers.js';
import { call } from './helpers.js';

const APP = fixture('security', 'shared-pool');
const TOKEN = 'svc-token-of-the-victim';

/**
 * The victim (holds SVC_TOKEN) and the attacker (no env) as trusted plugins; `pool` is the victim's entry's setting.
 */
function options(
  pool: 'shared' | 'own' | undefined,
  limits: Record<string, unknown> = { threads: 1 },
  env: Record<string, string | undefined> = { PATH: process.env.PATH, SVC_TOKEN: TOKEN },
): ToolHostOptions {
  return {
    cwd: APP,
    env,
    config: {
      builtins: false,
      limits,
      plugins: [
        { package: 'toolshed-plugin-svc', trust: 'trusted', ...(pool ? { pool } : {}) },
        { package: 'toolshed-plugin-snoop', trust: 'trusted' },
      ],
    },
  };
}

describe("opted into the shared pool, what a plugin left behind reads another plugin's secret", () => {
  it("a dependency that copied process.env at import gives the plugin without the grant the other plugin's token", async () => {
    await withHost(options('shared'), async (host) => {
      const victim = await call(host, 'svc_request');
      expect(victim.authorized).toBe(true);
      const snoop = await call(host, 'snoop_settings');
      expect(snoop.threadId).toBe(victim.threadId); // one worker ran both
      // What the pool separates: the snoop's own process.env holds only its (empty) grant...
      expect(snoop).toMatchObject({ own: null, keys: [] });
      // ...and what it does not: the library, loaded once in that worker, kept what it copied.
      expect(snoop.copied).toBe(TOKEN);
    });
  });

  it("a listener left on a shared emitter runs during the other plugin's call and reads that plugin's grant", async () => {
    await withHost(options('shared'), async (host) => {
      const listening = await call(host, 'snoop_listen');
      const victim = await call(host, 'svc_request');
      expect(victim.threadId).toBe(listening.threadId);
      expect(await call(host, 'snoop_seen')).toEqual([TOKEN]);
    });
  });
});

describe('by default a trusted plugin holding env grants runs in a pool of its own', () => {
  it('neither leak reaches the plugin without the grant, even with one thread per pool', async () => {
    await withHost(options(undefined), async (host) => {
      const listening = await call(host, 'snoop_listen');
      const victim = await call(host, 'svc_request');
      expect(victim.authorized).toBe(true);
      expect(victim.threadId).not.toBe(listening.threadId);
      expect(await call(host, 'snoop_seen')).toEqual([]);
      expect(await call(host, 'snoop_settings')).toMatchObject({ copied: null, own: null, keys: [] });
    });
  });

  it('explain says which pool each plugin runs in and why', async () => {
    await withHost(options(undefined), async (host) => {
      const pools = Object.fromEntries(
        host.explain().plugins.map((p) => [p.name, { kind: p.pool?.kind, reason: p.pool?.reason }]),
      );
      expect(pools).toEqual({
        'toolshed-plugin-svc': { kind: 'own', reason: 'it holds env grants (SVC_TOKEN)' },
        'toolshed-plugin-snoop': { kind: 'shared', reason: 'it holds no env grants' },
      });
    });
    await withHost(options('shared'), async (host) => {
      expect(host.explain().plugins.find((p) => p.name === 'toolshed-plugin-svc')?.pool).toMatchObject({
        kind: 'shared',
        reason: "pool: 'shared' in its config entry, though it holds env grants (SVC_TOKEN)",
      });
    });
  });

  it('a granted variable that is not set in the host env is no grant held: the plugin stays in the shared pool', async () => {
    await withHost(options(undefined, { threads: 1 }, { PATH: process.env.PATH }), async (host) => {
      expect(host.explain().plugins.find((p) => p.name === 'toolshed-plugin-svc')?.pool).toMatchObject({
        kind: 'shared',
        reason: 'it holds no env grants',
      });
      const victim = await call(host, 'svc_request');
      expect(victim.authorized).toBe(false);
      expect((await call(host, 'snoop_settings')).threadId).toBe(victim.threadId);
    });
  });

  it('its own pool is small: at most 2 threads however many limits.threads allows; pool: own gets limits.threads', async () => {
    const threadsAfterFourCalls = async (pool: 'own' | undefined) =>
      withHost(options(pool, { threads: 4 }), async (host) => {
        const threads = new Set(
          (await Promise.all(Array.from({ length: 4 }, () => call(host, 'svc_wait', { ms: 400 })))).map(
            (r) => r.threadId,
          ),
        );
        const report = host.explain().plugins.find((p) => p.name === 'toolshed-plugin-svc')?.pool;
        return { distinct: threads.size, started: report?.threads, kind: report?.kind };
      });
    const small = await threadsAfterFourCalls(undefined);
    expect(small.kind).toBe('own');
    expect(small.started).toBeLessThanOrEqual(2);
    expect(small.distinct).toBeLessThanOrEqual(2);
    const explicit = await threadsAfterFourCalls('own');
    expect(explicit.kind).toBe('own');
    // Four calls at once each got a worker of their own: up to limits.threads of them.
    expect(explicit.started).toBeGreaterThan(2);
  }, 60_000);
});
