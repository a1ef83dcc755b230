/**
 * Scenario 3: `definitions()` on 300 tools from 40 plugins with 60 check
 * functions, against one thread-tier dispatch of the trivial tool.
 *
 * - memoized: nothing changed, the memo is returned;
 * - recompute with a warm check cache: the public API has no way to drop only
 *   the memo (`invalidateChecks()` also empties the check cache, and with a
 *   monotonic clock the memo only expires when a check verdict does). The one
 *   honest path is the grace window: one check that passed now fails, so its
 *   success is served but not cached and every call re-runs the whole
 *   pipeline with 59 verdicts from the cache and that 1 check re-probed in
 *   its worker. This is an upper bound on a zero-probe recompute.
 * - cold: `invalidateChecks()` first, so all 60 checks probe (pools warm).
 *
 * The clock is injected and frozen so no TTL expires during the run.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createToolHost } from '../../dist/core/index.js';
import { writeRegistry } from '../lib/plugins.js';
import { interleave, ratio, summarize } from '../stats.js';
import { benchHost, THREADS } from './dispatch.js';
import { cacheDirFor } from '../lib/cache-dir.js';

const REGISTRY_THREADS = 1;

function probesOf(host, tool) {
  return host.explain().tools.find((t) => t.name === tool)?.probes ?? 0;
}

export default {
  id: '3',
  title: 'definitions() on 300 tools, 40 plugins, 60 checks',
  async run({ tmp, quick }) {
    const flag = path.join(tmp, 'flapping-check-fails');
    const dirs = writeRegistry(path.join(tmp, 'registry'), { plugins: 40, tools: 300, checks: 60, flagFile: flag });
    const clock = { now: () => 1_000_000 };
    const config = {
      builtins: false,
      plugins: dirs.map((dir) => ({ package: dir, trust: 'trusted' })),
      cache: { dir: cacheDirFor(tmp) },
      limits: { threads: REGISTRY_THREADS },
      // A loaded machine must not turn a slow first probe into a hidden tool: this measures cost, not timeouts.
      checks: { timeoutMs: 60_000 },
    };
    const started = performance.now();
    const host = await createToolHost({ cwd: tmp, clock, env: { ...process.env, BENCH_API_KEY: 'set' }, config });
    const createMs = performance.now() - started;
    let small;
    try {
      small = await benchHost(tmp);
      const exposed = (await host.definitions()).length;
      const dispatch = { name: 'dispatch', op: () => small.dispatch('bench_echo', '{"n":1}') };
      const a = await interleave(
        [
          { name: 'memo', op: () => host.definitions(), before: () => host.definitions(), batch: quick ? 200 : 500 },
          {
            name: 'cold',
            op: () => host.definitions(),
            prepare: () => host.invalidateChecks(),
            batch: quick ? 4 : 10,
            warmup: 2,
          },
          dispatch,
        ],
        { rounds: quick ? 3 : 10, batch: quick ? 100 : 250, warmup: 200 },
      );

      // From here on the first check fails within its grace window: every call recomputes, re-probing only it.
      writeFileSync(flag, '');
      host.invalidateChecks();
      await host.definitions();
      const before = [probesOf(host, 'p00_tool_0'), probesOf(host, 'p01_tool_0')];
      for (let i = 0; i < 5; i++) await host.definitions();
      const after = [probesOf(host, 'p00_tool_0'), probesOf(host, 'p01_tool_0')];
      if (after[0] - before[0] !== 5 || after[1] !== before[1])
        throw new Error(`grace-window recompute did not probe exactly one check per call (${before} → ${after})`);
      const now = (await host.definitions()).length;
      if (now !== exposed) {
        const hidden = host.explain().tools.filter((t) => !t.exposed && !t.reason?.startsWith('bench:'));
        throw new Error(
          `the exposed set changed (${exposed} → ${now}): ${hidden.map((t) => `${t.name}: ${t.reason}`).join('; ')}`,
        );
      }
      const b = await interleave(
        [{ name: 'recompute', op: () => host.definitions(), batch: quick ? 20 : 50, warmup: 20 }, dispatch],
        { rounds: quick ? 3 : 10, batch: quick ? 100 : 250, warmup: 100 },
      );

      const label = `dispatch (thread tier, ${THREADS} threads)`;
      const row = (name, measured, baseline, target) => ({
        scenario: '3',
        name,
        measured,
        baseline: { label, ...baseline },
        ratio: ratio(measured, baseline),
        target,
      });
      const memo = summarize(a.memo);
      const cold = summarize(a.cold);
      const recompute = summarize(b.recompute);
      return [
        row('definitions(), memoized', memo, summarize(a.dispatch), { max: 0.01, text: '≤ 1% of a dispatch' }),
        {
          ...row('definitions(), recompute, 59/60 verdicts cached, 1 re-probed', recompute, summarize(b.dispatch), {
            max: 10,
            text: '≤ 10× a dispatch',
          }),
          note:
            `the grace-window path (the public API cannot drop only the memo); ${exposed} of 300 tools exposed; ` +
            `the one probe is a worker round trip, so this bounds a zero-probe recompute from above`,
        },
        {
          ...row('definitions(), cold: all 60 checks probe (pools warm)', cold, summarize(a.dispatch), {
            text: 'report',
          }),
          note:
            `registry pools run ${REGISTRY_THREADS} thread each; createToolHost with cold manifest cache, 40 ` +
            `pools starting and 60 first probes took ${createMs.toFixed(0)} ms (one sample)`,
        },
      ];
    } finally {
      await host.close();
      await small?.close();
    }
  },
};
