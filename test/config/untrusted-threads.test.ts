/**
 * What docs/configuration.md says `limits.threads` means for an untrusted plugin:
 * its child has no pool, it runs every call on its one main thread, and there
 * `threads` + `maxQueue` is how many of its calls may be in flight before QUEUE_FULL.
 */
import { describe, expect, it } from 'vitest';
import { fixture, fixtureOptions, withHost } from '../helpers.js';

const untrustedKitchen = (limits: Record<string, number>) =>
  fixtureOptions([], {
    config: { builtins: false, plugins: [{ package: fixture('plugins', 'kitchen'), trust: 'untrusted' }], limits },
  });

describe('limits.threads and an untrusted plugin', () => {
  it("runs the plugin's calls on the child's main thread, whatever limits.threads says", async () => {
    await withHost(untrustedKitchen({ threads: 4 }), async (host) => {
      expect(host.explain().plugins.find((p) => p.name === 'toolshed-plugin-kitchen')).toMatchObject({
        tier: 'process',
      });
      const seen = await Promise.all([1, 2, 3].map(() => host.dispatch('thread', {})));
      for (const reply of seen) expect(JSON.parse(reply)).toEqual({ isMainThread: true, threadId: 0 });
    });
  });

  it('refuses a call past threads + maxQueue in flight with QUEUE_FULL; the others complete', async () => {
    await withHost(untrustedKitchen({ threads: 2, maxQueue: 1 }), async (host) => {
      const results = await Promise.all([1, 2, 3, 4].map(() => host.dispatch('slow', { ms: 500 })));
      expect(results.filter((r) => r === 'waited 500')).toHaveLength(3);
      expect(JSON.parse(results.find((r) => r !== 'waited 500')!).code).toBe('QUEUE_FULL');
    });
  });
});
