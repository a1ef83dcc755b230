import { describe, expect, it } from 'vitest';
import { createToolHost } from 'toolshed';
import { fixture, fixtureOptions } from '../helpers.js';

const handles = () => process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap' && r !== 'Timeout');

describe('teardown', () => {
  it('close() leaves no workers, message ports or pools behind', async () => {
    const before = handles();
    const host = await createToolHost(fixtureOptions(['kitchen', 'probe']));
    await Promise.all([host.dispatch('thread', {}), host.dispatch('chatty', {}), host.dispatch('slow', { ms: 5 })]);
    expect(host.explain().plugins.filter((p) => p.pool?.started).length).toBeGreaterThan(0);
    await host.close();
    // Piscina and the RPC ports release their handles once closed.
    await new Promise((resolve) => setImmediate(resolve));
    expect(handles().sort()).toEqual(before.sort());
  });

  it('dispatch after close is an envelope, not a throw', async () => {
    const host = await createToolHost(fixtureOptions(['kitchen']));
    await host.close();
    expect(JSON.parse(await host.dispatch('text', {})).code).toBe('HOST_CLOSED');
    await host.close();
  });

  it('a call running when close() starts ends with HOST_CLOSED, in both tiers', async () => {
    const trusted = await createToolHost(fixtureOptions(['kitchen']));
    const untrusted = await createToolHost({
      ...fixtureOptions([]),
      config: {
        builtins: false,
        cache: { enabled: false },
        plugins: [{ package: fixture('plugins', 'kitchen'), trust: 'untrusted' }],
      },
    });
    for (const host of [trusted, untrusted]) {
      const running = host.call('slow', { ms: 30_000 });
      // The call is in its plugin's pool before the host closes underneath it.
      await expect
        .poll(() => host.explain().plugins.find((p) => p.name === 'toolshed-plugin-kitchen')?.pool?.inFlight)
        .toBe(1);
      await host.close();
      const outcome = await running;
      expect(outcome).toMatchObject({ ok: false, code: 'HOST_CLOSED' });
    }
  });
});
