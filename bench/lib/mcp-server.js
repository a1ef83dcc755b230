// The MCP baseline: a plain SDK server over stdio with the same trivial tool
// and nothing else (no validation, no worker).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { echo } from './handlers.js';

const inputSchema = { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'], additionalProperties: false };
const server = new Server({ name: 'bench-baseline', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'bench_echo', description: 'Returns n.', inputSchema }] }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: 'text', text: JSON.stringify(await echo(request.params.arguments ?? {})) }],
}));
await server.connect(new StdioServerTransport());
