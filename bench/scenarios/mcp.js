/**
 * Scenario 7: a `tools/call` round trip from the official SDK client over
 * stdio to `toolshed serve`, against plain SDK servers with the same trivial
 * tool (bench/lib/mcp-server.js): the low-level `Server` and the high-level
 * `McpServer`. A context row runs the low-level server with the tool in a raw
 * Piscina pool: what one worker hop costs in this setting. Measured only when
 * `serve` answers.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeBenchPlugin } from '../lib/plugins.js';
import { interleave, ratio, summarize } from '../stats.js';
import { cacheDirFor } from '../lib/cache-dir.js';

const CLI = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
const BASELINE = fileURLToPath(new URL('../lib/mcp-server.js', import.meta.url));
const NAME = 'MCP tools/call round trip over stdio, toolshed serve';
const TARGET = { max: 1.5, text: 'p50 ≤ 1.5×' };

/** Spawns `node ...args` as an MCP server and connects the SDK client; the error carries the server's stderr. */
async function connect(args, cwd) {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  const client = new Client({ name: 'toolshed-bench', version: '1.0.0' });
  let timer;
  try {
    await Promise.race([
      client.connect(transport),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no answer within 20 s')), 20_000))),
    ]);
    return client;
  } catch (error) {
    await client.close().catch(() => {});
    const why = stderr.trim().split('\n').find(Boolean);
    throw new Error(why ? `${error.message}; stderr: ${why}` : error.message);
  } finally {
    clearTimeout(timer);
  }
}

async function echoOnce(client) {
  const result = await client.callTool({ name: 'bench_echo', arguments: { n: 1 } });
  const text = result.content?.[0]?.text;
  if (result.isError || text !== '{"echo":1}')
    throw new Error(`bench_echo over MCP returned ${JSON.stringify(result).slice(0, 200)}`);
}

export default {
  id: '7',
  title: 'MCP tools/call round trip',
  async run({ tmp, quick }) {
    const dir = writeBenchPlugin(path.join(tmp, 'bench'));
    const config = path.join(tmp, '.toolshedrc.json');
    writeFileSync(
      config,
      JSON.stringify({
        builtins: false,
        plugins: [{ package: dir, trust: 'trusted' }],
        cache: { dir: cacheDirFor(tmp) },
      }),
    );
    const clients = [];
    try {
      const low = await connect([BASELINE], tmp);
      clients.push(low);
      const high = await connect([BASELINE, '--high-level'], tmp);
      clients.push(high);
      const hop = await connect([BASELINE, '--piscina'], tmp);
      clients.push(hop);
      let toolshed;
      try {
        toolshed = await connect([CLI, 'serve', '--config', config], tmp);
        clients.push(toolshed);
        await echoOnce(toolshed);
      } catch (error) {
        return [
          { scenario: '7', name: NAME, target: TARGET, notMeasured: `toolshed serve did not answer: ${error.message}` },
        ];
      }
      for (const client of [low, high, hop]) await echoOnce(client);
      const samples = await interleave(
        [
          { name: 'toolshed', op: () => echoOnce(toolshed) },
          { name: 'low', op: () => echoOnce(low) },
          { name: 'high', op: () => echoOnce(high) },
          { name: 'hop', op: () => echoOnce(hop) },
        ],
        quick ? { rounds: 4, batch: 100, warmup: 100 } : { rounds: 20, batch: 250, warmup: 500 },
      );
      const measured = summarize(samples.toolshed);
      const row = (name, label, key, target) => {
        const base = summarize(samples[key]);
        return { scenario: '7', name, measured, baseline: { label, ...base }, ratio: ratio(measured, base), target };
      };
      const hopRow = row(
        `${NAME} vs the low-level server with a raw Piscina hop`,
        'low-level SDK Server + raw piscina.run',
        'hop',
        { text: 'context' },
      );
      const hopCost = summarize(samples.hop).median / summarize(samples.low).median;
      const cost = hopCost.toFixed(2);
      hopRow.note = `the floor of one worker hop here: the hop server alone is ${cost}× the low-level server`;
      return [
        row(`${NAME} vs plain low-level SDK Server`, 'plain SDK Server', 'low', TARGET),
        row(`${NAME} vs plain high-level SDK McpServer`, 'plain SDK McpServer', 'high', TARGET),
        hopRow,
      ];
    } finally {
      for (const client of clients) await client.close();
    }
  },
};
