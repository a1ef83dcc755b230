/**
 * Scenario 5: throughput of a CPU-bound tool with `limits.threads` 1 and 2.
 * Each op fires CALLS calls at once and waits for all; the speedup is the
 * ratio of the time per call. A raw Piscina pool with 1 and 2 threads running
 * the same handler shows what this machine allows at the same moment.
 */
import os from 'node:os';
import { interleave, summarize } from '../stats.js';
import { benchHost, rawPool } from './dispatch.js';

const CALLS = 8;

function perCall(samples) {
  return summarize(samples.map((ms) => ms / CALLS));
}

export default {
  id: '5',
  title: 'CPU-bound throughput, 1 vs 2 threads',
  async run({ tmp, quick }) {
    const n = quick ? 2_000_000 : 4_000_000; // a few ms of arithmetic per call
    const args = JSON.stringify({ n });
    const raw1 = rawPool(1);
    const raw2 = rawPool(2);
    let one;
    let two;
    try {
      one = await benchHost(tmp, { threads: 1, dir: `${tmp}/bench-1` });
      two = await benchHost(tmp, { threads: 2, dir: `${tmp}/bench-2` });
      const burst = (call) => () => Promise.all(Array.from({ length: CALLS }, call));
      const expectOk = (text) => {
        if (!text.startsWith('{"x":')) throw new Error(`bench_spin returned ${text.slice(0, 200)}`);
      };
      const samples = await interleave(
        [
          { name: 'one', op: burst(() => one.dispatch('bench_spin', args).then(expectOk)) },
          { name: 'two', op: burst(() => two.dispatch('bench_spin', args).then(expectOk)) },
          { name: 'raw1', op: burst(() => raw1.run({ n }, { name: 'spin' })) },
          { name: 'raw2', op: burst(() => raw2.run({ n }, { name: 'spin' })) },
        ],
        { rounds: quick ? 3 : 12, batch: 2, warmup: quick ? 1 : 2 },
      );
      const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, perCall(v)]));
      const row = (name, measured, baseline, label, target) => {
        const speedup = baseline.median / measured.median;
        return {
          scenario: '5',
          name,
          measured,
          baseline: { label, ...baseline },
          ratio: speedup,
          ratioText: `${speedup.toFixed(2)}× speedup`,
          target,
        };
      };
      const cores = os.availableParallelism();
      const started = two.explain().plugins[0]?.pool?.threads;
      return [
        {
          ...row('CPU-bound tool, time per call, 2 threads vs 1', s.two, s.one, 'same tool, 1 thread', {
            min: 1.7,
            text: 'speedup ≥ 1.7×',
          }),
          note:
            `${CALLS} concurrent calls per op, ~${n / 1e6}M iterations each; the 2-thread pool ran ${started} ` +
            `threads; ${cores} cores shared with whatever else runs on the machine`,
        },
        row(
          'raw Piscina, same handler, 2 threads vs 1 (what the machine allows)',
          s.raw2,
          s.raw1,
          'raw Piscina, 1 thread',
          { text: 'context' },
        ),
      ];
    } finally {
      await one?.close();
      await two?.close();
      await raw1.destroy();
      await raw2.destroy();
    }
  },
};
