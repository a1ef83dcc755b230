/**
 * Scenario 13: the scale start. A fresh `node` process creating a host with
 * 100 plugin packages (1000 tools) and exiting, with the manifest cache warm
 * and with it disabled (every manifest extracted, a few at a time), against
 * `node -e 0` in the same interleaved run.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeRegistry } from '../lib/plugins.js';
import { interleave, ratio, summarize } from '../stats.js';
import { runNode } from './startup.js';
import { cacheDirFor } from '../lib/cache-dir.js';

const CHILD = fileURLToPath(new URL('../lib/startup-child.js', import.meta.url));

export default {
  id: '13',
  title: 'Startup with 100 plugin packages',
  async run({ tmp, quick }) {
    const dirs = writeRegistry(path.join(tmp, 'plugins'), { plugins: 100, tools: 1000, checks: 0 });
    const base = { builtins: false, plugins: dirs.map((dir) => ({ package: dir, trust: 'trusted' })) };
    const warmConfig = JSON.stringify({ ...base, cache: { dir: cacheDirFor(tmp) } });
    const coldConfig = JSON.stringify({ ...base, cache: { enabled: false } });
    await runNode([CHILD, warmConfig, tmp]); // fills the manifest cache
    const samples = await interleave(
      [
        { name: 'node', op: () => runNode(['-e', '0']) },
        { name: 'warm', op: () => runNode([CHILD, warmConfig, tmp]) },
        { name: 'cold', op: () => runNode([CHILD, coldConfig, tmp], 120_000) },
      ],
      { rounds: quick ? 2 : 6, batch: 1, warmup: 0 },
    );
    const report = JSON.parse((await runNode([CHILD, coldConfig, tmp, '--report'], 120_000)).stdout);
    if (report.loaded !== 100 || report.fromCache !== 0)
      throw new Error(`a cold start did not load all 100 plugins: ${JSON.stringify(report)}`);
    const node = summarize(samples.node);
    const label = 'node -e 0';
    return [
      {
        scenario: '13',
        name: 'startup, 100 plugins, manifest cache warm',
        measured: summarize(samples.warm),
        baseline: { label, ...node },
        ratio: ratio(summarize(samples.warm), node),
        target: { max: 3, text: '≤ 3× node -e 0' },
      },
      {
        scenario: '13',
        name: 'startup, 100 plugins, no manifest cache',
        measured: summarize(samples.cold),
        baseline: { label, ...node },
        ratio: ratio(summarize(samples.cold), node),
        target: { text: 'report' },
        note: `all 100 loaded; createToolHost itself took ${report.startupMs} ms in one more run`,
      },
    ];
  },
};
