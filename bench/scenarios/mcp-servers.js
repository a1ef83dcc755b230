/**
 * Scenario 15: a call through toolshed (host.dispatch) to a tool of a stdio
 * MCP server in `mcpServers`, against the same call made straight to the
 * same server with the SDK client. The server is the plain SDK server of
 * scenario 7 (bench/lib/mcp-server.js); toolshed starts it untrusted, in the
 * sandbox launcher with Node's permission model, and the direct client
 * starts it plainly. The difference is toolshed's hop: the exposure gate,
 * argument validation, the runner and the result mapping.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { interleave, ratio, summarize } from '../stats.js';
import { loadBuild } from '../lib/load-build.js';

const SERVER = fileURLToPath(new URL('../lib/mcp-server.js', import.meta.url));
const NAME = 'a call to a stdio MCP server through toolshed vs straight to it with the SDK client';
const TARGET = { max: 1.3, text: 'p50 ≤ 1.3×' };
const EXPECTED = '{"echo":1}';

export default {
  id: '15',
  title: 'MCP server toolset call',
  async run({ tmp, quick }) {
    const toolshed = await loadBuild();
    if (toolshed.error)
      return [
        { scenario: '15', name: NAME, target: TARGET, notMeasured: `the build is missing: ${toolshed.error.message}` },
      ];
    const host = await toolshed.createToolHost({
      cwd: tmp,
      env: { PATH: process.env.PATH },
      config: {
        builtins: false,
        cache: { enabled: false },
        mcpServers: { bench: { command: 'node', args: [SERVER] } },
      },
    });
    const direct = new Client({ name: 'toolshed-bench', version: '1.0.0' });
    try {
      const server = host.explain().plugins.find((p) => p.name === 'mcp:bench');
      if (server?.mcp?.state !== 'connected')
        return [
          {
            scenario: '15',
            name: NAME,
            target: TARGET,
            notMeasured: `the server did not connect: ${server?.mcp?.reason}`,
          },
        ];
      await direct.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'ignore' }));
      const through = async () => {
        const text = await host.dispatch('bench_echo', { n: 1 });
        if (text !== EXPECTED) throw new Error(`bench_echo through toolshed returned ${text.slice(0, 200)}`);
      };
      const straight = async () => {
        const result = await direct.callTool({ name: 'bench_echo', arguments: { n: 1 } });
        if (result.content?.[0]?.text !== EXPECTED)
          throw new Error(`bench_echo returned ${JSON.stringify(result).slice(0, 200)}`);
      };
      const samples = await interleave(
        [
          { name: 'toolshed', op: through },
          { name: 'sdk', op: straight },
        ],
        quick ? { rounds: 4, batch: 100, warmup: 100 } : { rounds: 20, batch: 250, warmup: 500 },
      );
      const measured = summarize(samples.toolshed);
      const base = summarize(samples.sdk);
      const protections = server.mcp.protections;
      const note =
        `toolshed's server ran under ${protections.launcher}` +
        `${protections.permissionModel ? ' with the permission model' : ''}; the direct one plainly`;
      return [
        {
          scenario: '15',
          name: NAME,
          measured,
          baseline: { label: 'SDK client, same server', ...base },
          ratio: ratio(measured, base),
          target: TARGET,
          note,
        },
      ];
    } finally {
      await direct.close();
      await host.close();
    }
  },
};
