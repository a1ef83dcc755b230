/**
 * Scenario 12: a soak of 100k trivial calls (20k with --quick), 8 in flight,
 * through one host. Reports heap and RSS at the start (after a warm-up) and
 * at the end, after a GC where the process allows one; the end is compared
 * with the start.
 */
import path from 'node:path';
import { createToolHost } from '../../dist/core/index.js';
import { writeBenchPlugin } from '../lib/plugins.js';
import { cacheDirFor } from '../lib/cache-dir.js';

const MB = 2 ** 20;

function memory() {
  globalThis.gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed / MB, rss: rss / MB };
}

export default {
  id: '12',
  title: 'Soak: 100k calls',
  async run({ tmp, quick }) {
    const dir = writeBenchPlugin(path.join(tmp, 'soak'), { name: 'toolshed-plugin-soak', prefix: 'soak_' });
    const host = await createToolHost({
      cwd: tmp,
      config: { builtins: false, cache: { dir: cacheDirFor(tmp) }, plugins: [{ package: dir, trust: 'trusted' }] },
    });
    try {
      const total = quick ? 20_000 : 100_000;
      let next = 0;
      let errors = 0;
      const lane = async (count) => {
        while (next < count) {
          next++;
          if ((await host.dispatch('soak_echo', '{"n":1}')) !== '{"echo":1}') errors++;
        }
      };
      await Promise.all(Array.from({ length: 8 }, () => lane(5_000)));
      const start = memory();
      const t = performance.now();
      await Promise.all(Array.from({ length: 8 }, () => lane(5_000 + total)));
      const seconds = (performance.now() - t) / 1000;
      const end = memory();
      const row = (what, s, e) => ({
        scenario: '12',
        name: `soak, ${total / 1000}k calls: ${what} at the end vs the start`,
        unit: 'MB',
        measured: { median: e, p99: NaN, n: 1 },
        baseline: { label: `${what} at the start`, median: s, p99: NaN, n: 1 },
        ratio: e / s,
        target: { text: 'report' },
        note:
          `${errors} errors; ${(total / seconds).toFixed(0)} calls/s` +
          `${globalThis.gc ? '' : '; no --expose-gc, so the heap figures include garbage'}`,
      });
      return [row('heap used', start.heap, end.heap), row('RSS', start.rss, end.rss)];
    } finally {
      await host.close();
    }
  },
};
