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

const OTHER =
  'a call to a second, quiet 2,000-tool MCP server while the first storms list_changed vs while it is quiet';

/** The host's share of the storm: the same call to a server that is not itself busy listing. */
function otherRows(measured, base) {
  const baseline = { label: 'same call, first server quiet', ...base };
  return [
    {
      scenario: '16',
      name: `${OTHER} (p50)`,
      measured,
      baseline,
      ratio: measured.median / base.median,
      target: TARGET,
    },
    { scenario: '16', name: `${OTHER} (p99)`, measured, baseline, ratio: measured.p99 / base.p99, target: TARGET },
  ];
}

export default {
  id: '16',
  title: 'MCP list_changed storm',
  async run({ tmp, quick }) {
    const toolshed = await loadBuild();
    if (toolshed.error)
      return [
        { scenario: '16', name: NAME, target: TARGET, notMeasured: `the build is missing: ${toolshed.error.message}` },
      ];
    const host = await toolshed.createToolHost({
      cwd: tmp,
      env: { PATH: process.env.PATH },
      config: {
        builtins: false,
        cache: { enabled: false },
        mcpServers: {
          storm: { command: 'node', args: [SERVER], prefix: 's_', listing: { tools: 2_003, timeoutMs: 30_000 } },
          // The same server, never storming: a call to it measures what the storm costs the host, not the storming
          // server's own busy time.
          calm: { command: 'node', args: [SERVER], prefix: 'c_', listing: { tools: 2_003, timeoutMs: 30_000 } },
        },
      },
    });
    try {
      for (const name of ['mcp:storm', 'mcp:calm']) {
        const server = host.explain().plugins.find((p) => p.name === name);
        if (server?.mcp?.state !== 'connected')
          return [
            {
              scenario: '16',
              name: NAME,
              target: TARGET,
              notMeasured: `the server ${name} did not connect: ${server?.mcp?.reason}`,
            },
          ];
      }
      let n = 0;
      const echo = (tool) => async () => {
        const text = await host.dispatch(tool, { n: ++n });
        if (text !== `{"echo":${n}}`) throw new Error(`${tool} returned ${text.slice(0, 200)}`);
      };
      const call = echo('echo');
      const other = echo('c_echo');
      const setStorm = (on) => host.dispatch('storm', { on });
      const before = JSON.parse(await host.dispatch('stats', {}));
      const samples = await interleave(
        [
          // A storm batch runs for seconds, over several re-list windows, from half a second into the storm.
          { name: 'storm', op: call, before: async () => (await setStorm(true), await sleep(500)) },
          { name: 'quiet', op: call, before: async () => (await setStorm(false), await sleep(SETTLE_MS)) },
          { name: 'stormOther', op: other, before: async () => (await setStorm(true), await sleep(500)) },
          { name: 'quietOther', op: other, before: async () => (await setStorm(false), await sleep(SETTLE_MS)) },
        ],
        quick ? { rounds: 3, batch: 10_000, warmup: 300 } : { rounds: 8, batch: 20_000, warmup: 1_000 },
      );
      await setStorm(false);
      const after = JSON.parse(await host.dispatch('stats', {}));
      const measured = summarize(samples.storm);
      const base = summarize(samples.quiet);
      const baseline = { label: 'same call, server quiet', ...base };
      const note =
        `${after.notified - before.notified} list_changed led to ${after.lists - before.lists} listings of 2,003 ` +
        `tools`;
      return [
        {
          scenario: '16',
          name: `${NAME} (p50)`,
          measured,
          baseline,
          ratio: measured.median / base.median,
          target: TARGET,
          note,
        },
        { scenario: '16', name: `${NAME} (p99)`, measured, baseline, ratio: measured.p99 / base.p99, target: TARGET },
        ...otherRows(summarize(samples.stormOther), summarize(samples.quietOther)),
      ];
    } finally {
      await host.close();
    }
  },
};
