/**
 * Messages over the stdio limit: the SDK client sends a request larger than
 * `serve.maxMessageBytes`, gets a JSON-RPC error naming the limit for that
 * request, and the server goes on serving the same connection.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LineLimitedInput, OutlineScanner, type OversizedMessage } from '#internal/core/mcp-server/stdio/line-limit.js';
import { BIN, mcpConfig, textOf } from './setup.js';
import { tempDir, suiteHome } from '../helpers.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
/** What the file's shared server needs undone, after its last test. */
const fileCleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of fileCleanups.splice(0).reverse()) await cleanup();
});

/**
 * `toolshed serve` of `config` over stdio with an SDK client; undone after the test (or, into `undo`, when the caller
 * says).
 */
async function serve(
  config: Record<string, unknown>,
  undo = cleanups,
): Promise<{ client: Client; stderr: () => string }> {
  const work = tempDir('toolshed-mcp-large-');
  undo.push(() => work.cleanup());
  const file = path.join(work.dir, 'toolshed.config.json');
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"mcp-large","private":true}');
  writeFileSync(file, JSON.stringify(config));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--config', file],
    cwd: work.dir,
    env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'toolshed-test', version: '1.0.0' });
  await client.connect(transport);
  undo.push(() => client.close());
  return { client, stderr: () => stderr };
}

/** One server of the default config for the tests that do not change it (started on first use). */
let defaultServer: ReturnType<typeof serve> | undefined;
const serveDefault = () => (defaultServer ??= serve(mcpConfig(60_000), fileCleanups));

describe('stdio messages over the limit', () => {
  it('answers an 11 MB tools/call with an error naming the 10 MB default limit, and keeps serving', async () => {
    const { client, stderr } = await serveDefault();
    const big = 'x'.repeat(11 * 1024 * 1024);
    const error = await client.callTool({ name: 'echo', arguments: { content: big } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32600);
    expect((error as McpError).message).toContain(
      'over the limit of 10485760 bytes for one message (serve.maxMessageBytes)',
    );
    // The same connection still answers, and a message just under the limit still passes.
    expect(JSON.parse(textOf(await client.callTool({ name: 'echo', arguments: { after: true } })))).toEqual({
      after: true,
    });
    const nine = 'y'.repeat(9 * 1024 * 1024);
    const under = await client.callTool({ name: 'echo', arguments: { content: nine } });
    expect(under.isError).toBeFalsy();
    expect(textOf(under)).toMatch(/^\{"content":"y{1000}/);
    expect(stderr()).toContain('dropped a message of');
    expect(stderr()).not.toContain('client closed the connection');
  });

  it('uses serve.maxMessageBytes from the config', async () => {
    const { client } = await serve({ ...mcpConfig(60_000), serve: { maxMessageBytes: 64 * 1024 } });
    const error = (await client
      .callTool({ name: 'echo', arguments: { content: 'z'.repeat(70 * 1024) } })
      .catch((e: unknown) => e)) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.message).toContain('tools/call request of');
    expect(error.message).toContain('over the limit of 65536 bytes');
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('keeps __proto__ in MCP arguments a plain key: it does not satisfy required', async () => {
    const { client } = await serveDefault();
    const result = await client.callTool({
      name: 'typed',
      arguments: JSON.parse('{"__proto__":{"path":"p","mode":"read"}}'),
    });
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result))).toMatchObject({ code: 'INVALID_ARGUMENTS' });
  });
});

describe('the line limiter', () => {
  const outline = (text: string, chunk = 7) => {
    const scanner = new OutlineScanner();
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += chunk) scanner.write(bytes.subarray(i, i + chunk));
    return scanner.result();
  };

  it('reads the id and method from the top level wherever they are, across chunk boundaries', () => {
    expect(outline('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":[1,{"id":99}]}}')).toEqual({
      id: 7,
      method: 'tools/call',
    });
    expect(outline('{"method":"tools/call","params":{"x":"}{][\\"id\\":1"},"jsonrpc":"2.0","id":"req-1"}', 3)).toEqual({
      id: 'req-1',
      method: 'tools/call',
    });
    expect(outline('{"method":"notifications/x","params":{"id":4}}')).toEqual({ method: 'notifications/x' });
    expect(outline('not json at all')).toEqual({});
  });

  it('emits whole lines within the limit and reports a longer one without keeping it', () => {
    const source = new PassThrough();
    const dropped: OversizedMessage[] = [];
    const input = new LineLimitedInput(source, 32, (m) => dropped.push(m));
    const lines: string[] = [];
    input.on('data', (line: Buffer) => lines.push(line.toString()));
    source.write('{"id":1}\n{"id":2,"params":"');
    source.write('a'.repeat(100));
    source.write('"}\n{"id":3}\n');
    expect(lines).toEqual(['{"id":1}\n', '{"id":3}\n']);
    expect(dropped).toEqual([{ bytes: 120, id: 2 }]);
    input.dispose();
  });
});
