/**
 * Scenario 10: load. `c` calls kept in flight at once (1, 8, 64, 512) for a
 * fixed number of calls, spread over 1 plugin or over 10 plugins, thread tier
 * with the default limits. Reports throughput, p99 latency and errors, each
 * against raw Piscina with the same number of threads running the same
 * handler at the same concurrency in the same run (calls beyond its threads
 * wait in Piscina's own queue). Targets: every call succeeds at 512, 1 plugin
 * reaches at least 0.9× raw Piscina's throughput at 8 to 512 in flight, and 10
 * plugins reach at least 0.8× the throughput of one.
 */
import os from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import { createToolHost } from '../../dist/core/index.js';
import { writeBenchPlugin } from '../lib/plugins.js';
import { percentile } from '../stats.js';
import { cacheDirFor } from '../lib/cache-dir.js';

const TASK_URL = new URL('../workers/piscina-task.js', import.meta.url).href;
const LEVELS = [1, 8, 64, 512];

/** Runs `total` calls of `call(i)` keeping `concurrency` in flight; returns calls/s, p99 ms and errors. */
async function drive(call, total, concurrency) {
  const latencies = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < total) {
      const i = next++;
      const t = performance.now();
      const ok = await call(i).then(
        (r) => r,
        () => false,
      );
      latencies.push(performance.now() - t);
      if (!ok) errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  return { throughput: total / seconds, p99: percentile(latencies, 99), errors };
}

export default {
  id: '10',
  title: 'Load at concurrency 1, 8, 64, 512 over 1 and 10 plugins',
  async run({ tmp, quick }) {
    const threads = Math.max(1, Math.min(4, os.availableParallelism()));
    const dirs = Array.from({ length: 10 }, (_, p) =>
      writeBenchPlugin(path.join(tmp, `load-${p}`), { name: `toolshed-plugin-load-${p}`, prefix: `load${p}_` }),
    );
    const config = (list) => ({
      builtins: false,
      cache: { dir: cacheDirFor(tmp) },
      plugins: list.map((dir) => ({ package: dir, trust: 'trusted' })),
    });
    const one = await createToolHost({ cwd: tmp, config: config(dirs.slice(0, 1)) });
    const ten = await createToolHost({ cwd: tmp, config: config(dirs) });
    const raw = new Piscina({
      filename: TASK_URL,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: 30_000,
      concurrentTasksPerWorker: 1,
      resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 },
    });
    const ok = (text) => text === '{"echo":1}';
    const calls = {
      one: (i) => one.dispatch('load0_echo', '{"n":1}').then(ok),
      ten: (i) => ten.dispatch(`load${i % 10}_echo`, '{"n":1}').then(ok),
      raw: () => raw.run({ n: 1 }, { name: 'echo' }).then((r) => r.echo === 1),
    };
    try {
      const total = quick ? 2_000 : 10_000;
      for (const call of Object.values(calls)) await drive(call, 500, 8); // warm every pool
      const rows = [];
      for (const c of LEVELS) {
        const results = { one: [], ten: [], raw: [] };
        // Alternate the three, twice over, so drift hits all alike; keep the better run of each.
        for (let round = 0; round < 2; round++)
          for (const [name, call] of Object.entries(calls)) results[name].push(await drive(call, total, c));
        const best = (list) => list.reduce((a, b) => (b.throughput > a.throughput ? b : a));
        const [r1, r10, rr] = [best(results.one), best(results.ten), best(results.raw)];
        const errors = results.one.reduce((n, r) => n + r.errors, 0) + results.ten.reduce((n, r) => n + r.errors, 0);
        const row = (name, m, b, label, target) => ({
          scenario: '10',
          name,
          unit: 'calls/s',
          measured: { median: m.throughput, p99: NaN, n: total },
          baseline: { label, median: b.throughput, p99: NaN, n: total },
          ratio: m.throughput / b.throughput,
          ratioText: `${(m.throughput / b.throughput).toFixed(2)}× throughput`,
          target,
          note:
            `p99 ${m.p99.toFixed(2)} ms vs ${b.p99.toFixed(2)} ms; errors ${m.errors} (toolshed, both hosts, all ` +
            `runs at this level: ${errors}); ${threads} threads`,
        });
        const vsRaw = c === 1 ? { text: 'report' } : { min: 0.9, text: '≥ 0.9× raw Piscina' };
        rows.push(
          row(
            `load, concurrency ${c}, 1 plugin vs raw Piscina`,
            r1,
            rr,
            `raw Piscina, ${threads} threads`,
            c === 512 ? { ...vsRaw, noErrors: true, text: '≥ 0.9× raw Piscina, no errors at 512' } : vsRaw,
          ),
        );
        rows.push(
          row(`load, concurrency ${c}, 10 plugins vs 1 plugin`, r10, r1, 'same load on 1 plugin', {
            min: 0.8,
            text: '≥ 0.8× one plugin',
          }),
        );
        rows[rows.length - 2].errors = errors;
      }
      return rows;
    } finally {
      await one.close();
      await ten.close();
      await raw.destroy();
    }
  },
};
