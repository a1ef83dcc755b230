// The HTTP baselines of scenario 18: a plain SDK v2 server with the same trivial tool as
// toolshed's bench plugin, served over Streamable HTTP at /mcp on node:http.
//   node http-server.js PORT               stateful: a `Server` and a transport per Mcp-Session-Id
//   node http-server.js PORT --stateless   stateless: `createMcpHandler`, a server per request
//   ... --piscina                          the handler runs the tool in a raw Piscina pool (2 threads)
// It prints `listening on http://127.0.0.1:PORT/mcp` on stderr once it listens.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { echo } from './handlers.js';

const port = Number(process.argv[2]);
const stateless = process.argv.includes('--stateless');
const inputSchema = {
  type: 'object',
  properties: { n: { type: 'integer', minimum: 0 } },
  required: ['n'],
  additionalProperties: false,
};
const text = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

let run = echo;
if (process.argv.includes('--piscina')) {
  const { Piscina } = await import('piscina');
  const pool = new Piscina({
    filename: new URL('../workers/piscina-task.js', import.meta.url).href,
    minThreads: 2,
    maxThreads: 2,
    concurrentTasksPerWorker: 1,
  });
  run = (args) => pool.run(args, { name: 'echo' });
}

function createServer() {
  const server = new Server({ name: 'bench-baseline', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({
    tools: [{ name: 'bench_echo', description: 'Returns n.', inputSchema }],
  }));
  server.setRequestHandler('tools/call', async (request) => text(await run(request.params.arguments ?? {})));
  return server;
}

/** Stateful: a server and transport per session, made on initialize. */
function statefulHandler() {
  const sessions = new Map();
  return async (req, res) => {
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const transport = sessions.get(id);
      if (!transport) return res.writeHead(404).end();
      return transport.handleRequest(req, res);
    }
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => sessions.set(sid, transport),
    });
    transport.onclose = () => sessions.delete(transport.sessionId);
    await createServer().connect(transport);
    return transport.handleRequest(req, res);
  };
}

const handler = stateless ? toNodeHandler(createMcpHandler(createServer, { legacy: 'stateless' })) : statefulHandler();
const httpServer = http.createServer((req, res) => {
  Promise.resolve(handler(req, res)).catch((error) => {
    if (!res.headersSent) res.writeHead(500).end(String(error));
  });
});
httpServer.listen(port, '127.0.0.1', () => process.stderr.write(`listening on http://127.0.0.1:${port}/mcp\n`));
