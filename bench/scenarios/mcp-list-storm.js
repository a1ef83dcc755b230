/**
 * Scenario 16: a trivial call to a stdio MCP server with 2,000 tools while
 * the server storms `notifications/tools/list_changed` (every 50-200 ms),
 * against the same call to the same server while it is quiet, in alternating
 * batches of one run. A re-list is debounced and one at a time, and re-lists
 * and rebuilds only that server, so the storm should cost calls little: the
 * p50 and the p99 are each compared. The note says how many listings the
 * notifications led to.
 */
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { interleave, summarize } from '../stats.js';
import { loadBuild } from '../lib/load-build.js';

const SERVER = fileURLToPath(new URL('../lib/storm-server.js', import.meta.url));
const NAME = 'a call to a 2,000-tool MCP server storming list_changed vs the same call while it is quiet';
const TARGET = { max: 1.5, text: '≤ 1.5×' };
/** Longer than the re-list's longest debounce (2 s), so a quiet batch starts after the storm's last listing. */
const SETTLE_MS = 2_500;

export default {
  id: '16',
  title: 'MCP list_changed storm',
  async run({ tmp, quick }) {
    const toolshed = await loadBuild();
    if (toolshed.error) return [{ scenario: '16', name: NAME, target: TARGET, notMeasured: `the build is missing: ${toolshed.error.message}` }];
    const host = await toolshed.createToolHost({
      cwd: tmp,
      env: { PATH: process.env.PATH },
      config: { builtins: false, cache: { enabled: false }, mcpServers: { storm: { command: 'node', args: [SERVER], prefix: 's_', listing: { tools: 2_003, timeoutMs: 30_000 } } } },
    });
    try {
      const server = host.explain().plugins.find((p) => p.name === 'mcp:storm');
      if (server?.mcp?.state !== 'connected') return [{ scenario: '16', name: NAME, target: TARGET, notMeasured: `the server did not connect: ${server?.mcp?.reason}` }];
      let n = 0;
      const call = async () => {
        const text = await host.dispatch('echo', { n: ++n });
        if (text !== `{"echo":${n}}`) throw new Error(`echo returned ${text.slice(0, 200)}`);
      };
      const setStorm = (on) => host.dispatch('storm', { on });
      const before = JSON.parse(await host.dispatch('stats', {}));
      const samples = await interleave(
        [
          // A storm batch runs for seconds, over several re-list windows, from half a second into the storm.
          { name: 'storm', op: call, before: async () => (await setStorm(true), await sleep(500)) },
          { name: 'quiet', op: call, before: async () => (await setStorm(false), await sleep(SETTLE_MS)) },
        ],
        quick ? { rounds: 3, batch: 10_000, warmup: 300 } : { rounds: 8, batch: 20_000, warmup: 1_000 },
      );
      await setStorm(false);
      const after = JSON.parse(await host.dispatch('stats', {}));
      const measured = summarize(samples.storm);
      const base = summarize(samples.quiet);
      const baseline = { label: 'same call, server quiet', ...base };
      const note = `${after.notified - before.notified} list_changed led to ${after.lists - before.lists} listings of 2,003 tools`;
      return [
        { scenario: '16', name: `${NAME} (p50)`, measured, baseline, ratio: measured.median / base.median, target: TARGET, note },
        { scenario: '16', name: `${NAME} (p99)`, measured, baseline, ratio: measured.p99 / base.p99, target: TARGET },
      ];
    } finally {
      await host.close();
    }
  },
};
