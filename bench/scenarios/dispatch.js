/**
 * Scenario 1: a thread-tier dispatch of a trivial tool (parse, ajv validation,
 * Piscina, normalization and cap included) against the same handler run by a
 * raw `piscina.run` in a pool of the same shape, a raw worker postMessage
 * round trip, and a direct call.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { createToolHost } from '../../dist/core/index.js';
import { echo } from '../lib/handlers.js';
import { writeBenchPlugin } from '../lib/plugins.js';
import { interleave, ratio, summarize } from '../stats.js';
import { cacheDirFor } from '../lib/cache-dir.js';

export const THREADS = 2;
const TASK_URL = new URL('../workers/piscina-task.js', import.meta.url).href;
const PORT_URL = new URL('../workers/port-echo.js', import.meta.url);

/** A host with only the bench plugin, in tier `trust`. */
export function benchHost(tmp, { trust = 'trusted', threads = THREADS, dir = path.join(tmp, `bench-${trust}`) } = {}) {
  writeBenchPlugin(dir);
  return createToolHost({
    cwd: tmp,
    config: {
      builtins: false,
      plugins: [{ package: dir, trust }],
      cache: { dir: cacheDirFor(tmp) },
      limits: { threads },
    },
  });
}

/**
 * A raw Piscina pool shaped like toolshed's thread pools (same thread count, one task per worker, same heap limits).
 */
export function rawPool(threads = THREADS) {
  return new Piscina({
    filename: TASK_URL,
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: 30_000,
    concurrentTasksPerWorker: 1,
    resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 },
  });
}

function portRoundTrip() {
  const worker = new Worker(PORT_URL);
  return {
    call: (args) =>
      new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage(args);
      }).finally(() => worker.removeAllListeners('error')),
    close: () => worker.terminate(),
  };
}

export default {
  id: '1',
  title: 'Dispatch, thread tier, trivial handler',
  async run({ tmp, quick }) {
    const pool = rawPool();
    const port = portRoundTrip();
    let host;
    try {
      host = await benchHost(tmp);
      const out = await host.dispatch('bench_echo', '{"n":1}');
      if (out !== '{"echo":1}') throw new Error(`bench_echo returned ${out}`);
      const samples = await interleave(
        [
          { name: 'dispatch', op: () => host.dispatch('bench_echo', '{"n":1}') },
          { name: 'piscina', op: () => pool.run({ n: 1 }, { name: 'echo' }) },
          {
            name: 'piscinaSignal',
            op: () => pool.run({ n: 1 }, { name: 'echo', signal: AbortSignal.timeout(60_000) }),
          },
          { name: 'port', op: () => port.call({ n: 1 }) },
          { name: 'direct', op: () => echo({ n: 1 }) },
        ],
        quick ? { rounds: 6, batch: 100, warmup: 200 } : { rounds: 20, batch: 250, warmup: 500 },
      );
      const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
      const row = (baseline, label, target) => ({
        scenario: '1',
        name: `dispatch (thread tier, ${THREADS} threads) vs ${label}`,
        measured: s.dispatch,
        baseline: { label, ...s[baseline] },
        ratio: ratio(s.dispatch, s[baseline]),
        ...(target ? { target: { max: target, text: `p50 ≤ ${target}×` } } : { target: { text: 'context' } }),
      });
      return [
        row('piscina', 'raw piscina.run, same pool shape', 1.3),
        {
          ...row('piscinaSignal', 'raw piscina.run + AbortSignal.timeout per call'),
          note:
            "context for the row above: the same raw run with a per-call deadline signal, as toolshed's hard " +
            'deadline does',
        },
        row('port', 'raw worker postMessage round trip'),
        row('direct', 'direct function call'),
      ];
    } finally {
      await host?.close();
      await pool.destroy();
      await port.close();
    }
  },
};
