/**
 * A stdio MCP server (the SDK's low-level Server) with 2,000 tools besides
 * `echo`, `storm` and `stats`, for scenario 16. `storm { on }` starts or
 * stops `notifications/tools/list_changed` every 50-200 ms; `stats` says how
 * many it sent and how many `tools/list` requests it answered.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const TOOLS = 2_000;
const stats = { lists: 0, notified: 0 };
const tools = [
  {
    name: 'echo',
    description: 'Returns n.',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  },
  {
    name: 'storm',
    description: 'Starts or stops sending list_changed.',
    inputSchema: { type: 'object', properties: { on: { type: 'boolean' } }, required: ['on'] },
  },
  { name: 'stats', description: 'Notifications sent and listings answered.', inputSchema: { type: 'object' } },
  ...Array.from({ length: TOOLS }, (_, i) => ({
    name: `tool_${i}`,
    description: `Numbered tool ${i}, one of many.`,
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string', description: 'a path' }, count: { type: 'integer', minimum: 0 } },
      required: ['path'],
    },
  })),
];

const server = new Server(
  { name: 'storm-bench', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } } },
);
let timer;
const storm = () => {
  timer = setTimeout(
    () => {
      stats.notified++;
      server.sendToolListChanged().catch(() => {});
      storm();
    },
    50 + Math.random() * 150,
  );
};
const text = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
server.setRequestHandler(ListToolsRequestSchema, async () => {
  stats.lists++;
  return { tools };
});
server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
  if (params.name === 'stats') return text(stats);
  if (params.name === 'storm') {
    clearTimeout(timer);
    if (params.arguments?.on) storm();
    return text({ storm: Boolean(params.arguments?.on) });
  }
  return text({ echo: params.arguments?.n });
});
await server.connect(new StdioServerTransport());
