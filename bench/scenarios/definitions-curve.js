/**
 * Scenario 9: the `definitions()` recompute as the registry grows: 10, 100,
 * 500, 1000 and 5000 tools (50 a plugin, 10% hidden for a missing env var,
 * every description with a conditional part naming another tool), each
 * against the 500-tool recompute measured in the same interleaved run. No
 * checks: `invalidateChecks()` then `definitions()` recomputes without a
 * worker. Two kinds of recompute: nothing changed (every verdict is asked
 * again and, all the same, the last exposure is reused: the recompute a TTL
 * expiry causes), and one a tenth of the tools flipped (their env var
 * toggled, so layer 3 and the guard have real work). Wall time and process CPU time are both reported: on a
 * loaded machine a long op is preempted more often than a short one, which
 * inflates wall-time ratios; CPU time shows the work.
 */
import path from 'node:path';
import { createToolHost } from '../../dist/core/index.js';
import { writeRegistry } from '../lib/plugins.js';
import { percentile, summarize } from '../stats.js';
import { cacheDirFor } from '../lib/cache-dir.js';

const SIZES = [10, 100, 500, 1000, 5000];

export default {
  id: '9',
  title: 'definitions() recompute curve, 10 to 5000 tools',
  async run({ tmp, quick }) {
    const hosts = {};
    const envs = {};
    try {
      for (const n of SIZES) {
        const dirs = writeRegistry(path.join(tmp, `r${n}`), {
          plugins: Math.max(1, Math.ceil(n / 50)),
          tools: n,
          checks: 0,
        });
        // BENCH_API_KEY unset: every 10th tool is hidden, so the guard has hidden names to look for.
        envs[n] = {};
        hosts[n] = await createToolHost({
          cwd: tmp,
          env: envs[n],
          config: {
            builtins: false,
            cache: { dir: cacheDirFor(tmp) },
            plugins: dirs.map((d) => ({ package: d, trust: 'trusted' })),
          },
        });
        await hosts[n].definitions();
      }
      const rows = [];
      for (const kind of ['unchanged', 'flip']) {
        const wall = Object.fromEntries(SIZES.map((n) => [n, []]));
        const cpu = Object.fromEntries(SIZES.map((n) => [n, []]));
        for (let round = 0; round < (quick ? 4 : 12); round++) {
          for (const n of SIZES) {
            const reps = n >= 5000 ? 3 : n >= 1000 ? 8 : 20;
            for (let i = 0; i < reps; i++) {
              if (kind === 'flip') envs[n].BENCH_API_KEY = envs[n].BENCH_API_KEY ? '' : 'set';
              hosts[n].invalidateChecks();
              const c = process.cpuUsage();
              const t = performance.now();
              await hosts[n].definitions();
              wall[n].push(performance.now() - t);
              const d = process.cpuUsage(c);
              cpu[n].push((d.user + d.system) / 1000);
            }
          }
        }
        const base = summarize(wall[500]);
        const baseCpu = percentile(cpu[500], 50);
        for (const n of SIZES) {
          const measured = summarize(wall[n]);
          const cpuRatio = percentile(cpu[n], 50) / baseCpu;
          rows.push({
            scenario: '9',
            name:
              `definitions() recompute, ${n} tools, ` +
              `${kind === 'flip' ? 'a tenth of the tools flipped each time' : 'nothing changed'}`,
            measured,
            baseline: { label: `the 500-tool recompute`, ...base },
            ratio: measured.median / base.median,
            target: n === 5000 ? { max: 12, text: '≤ 12× the 500-tool one' } : { text: 'curve' },
            note: `CPU time ${percentile(cpu[n], 50).toFixed(3)} ms, ${cpuRatio.toFixed(2)}× the 500-tool CPU time`,
          });
        }
      }
      return rows;
    } finally {
      for (const host of Object.values(hosts)) await host.close();
    }
  },
};
