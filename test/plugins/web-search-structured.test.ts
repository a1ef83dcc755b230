/**
 * The first-party web_search declares an outputSchema, a title and examples: through a real host
 * (against a fake Brave endpoint on 127.0.0.1) its result comes back as structured content that
 * passed its schema, the mcp format carries the schema and title, and execute_code's declaration
 * would type it (covered in test/execute-code/typed-results.test.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';

let server: http.Server;
let host: ToolHost;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        type: 'search',
        web: {
          results: [
            {
              title: 'Toolshed',
              url: 'https://example.com/t',
              description: 'Plugins <strong>host</strong>.',
              age: 'today',
            },
          ],
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  host = await createToolHost({
    cwd: process.cwd(),
    env: {
      PATH: process.env.PATH,
      BRAVE_API_KEY: 'test-key',
      BRAVE_SEARCH_ENDPOINT: `http://127.0.0.1:${port}/res/v1/web/search`,
    },
    config: { cache: { enabled: false }, enable: ['web'] },
  });
});

afterAll(async () => {
  await host?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('web_search with its outputSchema', () => {
  it('returns its results as structured content', async () => {
    const outcome = await host.call('web_search', { query: 'toolshed' });
    expect(outcome.ok).toBe(true);
    expect(outcome.content?.structured).toEqual({
      query: 'toolshed',
      results: [{ title: 'Toolshed', url: 'https://example.com/t', snippet: 'Plugins host.', age: 'today' }],
    });
  });

  it('lists its title and output schema in the mcp format', async () => {
    const tool = (await host.definitions({ format: 'mcp' })).find((t) => t.name === 'web_search')!;
    expect(tool.title).toBe('Web search');
    expect(tool.outputSchema).toMatchObject({ type: 'object', required: ['query', 'results'] });
  });
});
