/**
 * Scenario 2: dispatch of the trivial tool to an untrusted plugin (process
 * tier: a sandboxed child process that runs it on its main thread) against the same plugin trusted
 * (thread tier). Measured only when an untrusted plugin really runs in tier
 * 'process'.
 */
import { interleave, ratio, summarize } from '../stats.js';
import { benchHost, THREADS } from './dispatch.js';

const NAME = `dispatch, process tier vs thread tier (${THREADS} threads)`;
const TARGET = { max: 3, text: 'p50 ≤ 3×' };

export default {
  id: '2',
  title: 'Process tier dispatch',
  async run({ tmp, quick }) {
    const untrusted = await benchHost(tmp, { trust: 'untrusted' });
    let trusted;
    try {
      const plugin = untrusted.explain().plugins[0];
      if (plugin?.status !== 'loaded')
        return [
          {
            scenario: '2',
            name: NAME,
            target: TARGET,
            notMeasured: `the untrusted plugin did not load: ${plugin?.error?.code} ${plugin?.error?.message}`,
          },
        ];
      if (plugin.tier !== 'process')
        return [
          {
            scenario: '2',
            name: NAME,
            target: TARGET,
            notMeasured: `no process tier in this build (an untrusted plugin runs in tier '${plugin.tier}')`,
          },
        ];
      const first = await untrusted.dispatch('bench_echo', '{"n":1}');
      if (first !== '{"echo":1}')
        return [
          {
            scenario: '2',
            name: NAME,
            target: TARGET,
            notMeasured: `the process tier answered ${first.slice(0, 200)}`,
          },
        ];
      trusted = await benchHost(tmp, { trust: 'trusted' });
      const samples = await interleave(
        [
          { name: 'process', op: () => untrusted.dispatch('bench_echo', '{"n":1}') },
          { name: 'thread', op: () => trusted.dispatch('bench_echo', '{"n":1}') },
        ],
        quick ? { rounds: 4, batch: 100, warmup: 100 } : { rounds: 20, batch: 250, warmup: 500 },
      );
      const measured = summarize(samples.process);
      const baseline = summarize(samples.thread);
      return [
        {
          scenario: '2',
          name: NAME,
          measured,
          baseline: { label: 'thread-tier dispatch', ...baseline },
          ratio: ratio(measured, baseline),
          target: TARGET,
        },
      ];
    } finally {
      await untrusted.close();
      await trusted?.close();
    }
  },
};
