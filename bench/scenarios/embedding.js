/**
 * Scenario 8: what embedding costs.
 *
 * - a view: `host.view({ enable })` plus its first `definitions()` on the
 *   40-plugin, 300-tool registry, against creating that host in-process (warm
 *   manifest cache, no checks: the cheapest honest startup). Target ≤ 5%.
 * - hooks: a trivial dispatch through one no-op beforeCall/afterCall pair,
 *   against the same dispatch with no hooks (context: what a hook costs).
 */
import path from 'node:path';
import { createToolHost } from '../../dist/core/index.js';
import { writeRegistry } from '../lib/plugins.js';
import { interleave, ratio, summarize } from '../stats.js';
import { benchHost } from './dispatch.js';

export default {
  id: '8',
  title: 'Embedding: views and hooks',
  async run({ tmp, quick }) {
    const dirs = writeRegistry(path.join(tmp, 'plugins'), { plugins: 40, tools: 300, checks: 0 });
    const options = { cwd: tmp, config: { builtins: false, plugins: dirs.map((dir) => ({ package: dir, trust: 'trusted' })), cache: { dir: path.join(tmp, 'cache') } } };
    await (await createToolHost(options)).close(); // fills the manifest cache
    const host = await createToolHost(options);
    let plain;
    let hooked;
    try {
      const all = (await host.definitions()).length;
      const some = (await host.view({ enable: ['group0', 'group1'] }).definitions()).length;
      if (!(some > 0 && some < all)) throw new Error(`the view exposes ${some} of ${all} tools`);
      const views = await interleave(
        [
          { name: 'startup', op: async () => (await createToolHost(options)).close(), batch: quick ? 2 : 5, warmup: 1 },
          {
            name: 'view',
            op: async () => {
              const view = host.view({ enable: ['group0', 'group1'] });
              await view.definitions();
              await view.close();
            },
            batch: quick ? 20 : 50,
            warmup: 10,
          },
        ],
        { rounds: quick ? 3 : 8, batch: 5 },
      );

      plain = await benchHost(tmp, { dir: path.join(tmp, 'bench-plain') });
      hooked = await benchHost(tmp, { dir: path.join(tmp, 'bench-hooked') });
      hooked.use({ beforeCall: () => undefined, afterCall: () => undefined });
      const calls = await interleave(
        [
          { name: 'plain', op: () => plain.dispatch('bench_echo', '{"n":1}') },
          { name: 'hooked', op: () => hooked.dispatch('bench_echo', '{"n":1}') },
        ],
        quick ? { rounds: 6, batch: 100, warmup: 200 } : { rounds: 20, batch: 250, warmup: 500 },
      );
      const s = { ...Object.fromEntries(Object.entries(views).map(([k, v]) => [k, summarize(v)])), ...Object.fromEntries(Object.entries(calls).map(([k, v]) => [k, summarize(v)])) };
      return [
        {
          scenario: '8',
          name: 'view() + its first definitions() (2 of 4 toolset groups) vs host startup in-process (40 plugins, 300 tools, warm cache)',
          measured: s.view,
          baseline: { label: 'createToolHost + close', ...s.startup },
          ratio: ratio(s.view, s.startup),
          target: { max: 0.05, text: '≤ 0.05×' },
        },
        {
          scenario: '8',
          name: 'dispatch with one no-op beforeCall/afterCall pair vs no hooks',
          measured: s.hooked,
          baseline: { label: 'dispatch, no hooks', ...s.plain },
          ratio: ratio(s.hooked, s.plain),
          target: { text: 'context' },
        },
      ];
    } finally {
      await host.close();
      await plain?.close();
      await hooked?.close();
    }
  },
};
