/**
 * Scenario 6: one `execute_code` script making 100 calls of the trivial tool
 * against 100 direct dispatches, compared per call; and the fixed cost of a
 * script (an empty one) against one dispatch. Measured only when the host
 * exposes `execute_code`.
 */
import path from 'node:path';
import { createToolHost } from '../../dist/core/index.js';
import { writeBenchPlugin } from '../lib/plugins.js';
import { interleave, ratio, summarize } from '../stats.js';
import { cacheDirFor } from '../lib/cache-dir.js';

const CALLS = 100;
const NAME = `execute_code, ${CALLS} tool calls in one script vs ${CALLS} dispatches, per call`;
const TARGET = { max: 2, text: '≤ 2× per call' };
const EMPTY_NAME = 'execute_code, an empty script (the fixed cost of a script) vs one dispatch';
const SCRIPT =
  `let sum = 0;\nfor (let i = 0; i < ${CALLS}; i++) sum += (await tools.bench_echo({ n: 1 ` +
  `})).echo;\nconsole.log(sum);`;

export default {
  id: '6',
  title: 'execute_code with 100 tool calls',
  async run({ tmp, quick }) {
    const dir = writeBenchPlugin(path.join(tmp, 'bench'));
    const host = await createToolHost({
      cwd: tmp,
      config: {
        plugins: [{ package: dir, trust: 'trusted' }],
        cache: { dir: cacheDirFor(tmp) },
        codeExecution: { tools: ['bench_echo'], maxToolCalls: CALLS, timeoutMs: 60_000 },
      },
    });
    try {
      const names = (await host.definitions()).map((d) => d.function?.name);
      if (!names.includes('execute_code')) {
        const state = host.explain().tools.find((t) => t.name === 'execute_code');
        return [
          {
            scenario: '6',
            name: NAME,
            target: TARGET,
            notMeasured: state ? `execute_code is hidden: ${state.reason}` : 'no execute_code tool in this build',
          },
        ];
      }
      const script = JSON.stringify({ code: SCRIPT });
      const empty = JSON.stringify({ code: ';' });
      const first = await host.dispatch('execute_code', script);
      let parsed;
      try {
        parsed = JSON.parse(first);
      } catch {
        parsed = undefined;
      }
      if (parsed?.status !== 'ok' || parsed.toolCalls !== CALLS)
        return [
          {
            scenario: '6',
            name: NAME,
            target: TARGET,
            notMeasured: `the script did not run as expected: ${first.slice(0, 200)}`,
          },
        ];
      const samples = await interleave(
        [
          { name: 'code', op: () => host.dispatch('execute_code', script) },
          {
            name: 'direct',
            op: async () => {
              for (let i = 0; i < CALLS; i++) await host.dispatch('bench_echo', '{"n":1}');
            },
          },
          { name: 'empty', op: () => host.dispatch('execute_code', empty) },
        ],
        { rounds: quick ? 3 : 12, batch: quick ? 2 : 5, warmup: quick ? 1 : 2 },
      );
      const measured = summarize(samples.code.map((ms) => ms / CALLS));
      const baseline = summarize(samples.direct.map((ms) => ms / CALLS));
      const fixed = summarize(samples.empty);
      return [
        {
          scenario: '6',
          name: NAME,
          measured,
          baseline: { label: 'direct dispatch', ...baseline },
          ratio: ratio(measured, baseline),
          target: TARGET,
        },
        {
          scenario: '6',
          name: EMPTY_NAME,
          measured: fixed,
          baseline: { label: 'direct dispatch', ...baseline },
          ratio: ratio(fixed, baseline),
          target: { text: 'report' },
        },
      ];
    } finally {
      await host.close();
    }
  },
};
