// The MCP baselines: plain SDK servers over stdio with the same trivial tool
// and nothing else (no validation of toolshed's, no worker).
//   node mcp-server.js               the low-level `Server`, as toolshed serve is built
//   node mcp-server.js --high-level  the high-level `McpServer` (registerTool, zod input schema)
//   node mcp-server.js --piscina     the low-level `Server` whose handler runs the tool in a raw
//                                    Piscina pool (2 threads): what one worker hop costs here
//   node mcp-server.js --slow MS     the low-level `Server`, which starts serving only after MS milliseconds
//                                    (a slow MCP server in a toolshed config)
// Built on the SDK's v2 packages, as toolshed serve is, and served by its serveStdio (both eras).
import { McpServer, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { echo } from './handlers.js';

const mode = process.argv[2];
const inputSchema = {
  type: 'object',
  properties: { n: { type: 'integer', minimum: 0 } },
  required: ['n'],
  additionalProperties: false,
};
const text = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

let server;
if (mode === '--slow') await new Promise((resolve) => setTimeout(resolve, Number(process.argv[3])));
if (mode === '--high-level') {
  const { z } = await import('zod');
  const mcp = new McpServer({ name: 'bench-baseline', version: '1.0.0' });
  mcp.registerTool(
    'bench_echo',
    { description: 'Returns n.', inputSchema: z.object({ n: z.number().int().min(0) }) },
    async (args) => text(await echo(args)),
  );
  server = mcp;
} else {
  let run = echo;
  if (mode === '--piscina') {
    const { Piscina } = await import('piscina');
    const pool = new Piscina({
      filename: new URL('../workers/piscina-task.js', import.meta.url).href,
      minThreads: 2,
      maxThreads: 2,
      concurrentTasksPerWorker: 1,
    });
    run = (args) => pool.run(args, { name: 'echo' });
  }
  server = new Server({ name: 'bench-baseline', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({
    tools: [{ name: 'bench_echo', description: 'Returns n.', inputSchema }],
  }));
  server.setRequestHandler('tools/call', async (request) => text(await run(request.params.arguments ?? {})));
}
serveStdio(() => server);
