/**
 * A plugin tool's outputSchema, title and icons reach a real MCP client through `toolshed serve`
 * (stdio): tools/list carries them, a call returns `structuredContent` that the client's own
 * output-schema check accepts, and a result that does not match is an error result with
 * TOOL_RESULT_INVALID, never structured content that lies.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, textOf } from './setup.js';
import { fixture, suiteHome, tempDir } from '../helpers.js';

const work = tempDir('toolshed-mcp-structured-');
let client: Client;

beforeAll(async () => {
  const config = path.join(work.dir, 'toolshed.config.json');
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"mcp-structured","private":true}');
  writeFileSync(
    config,
    JSON.stringify({
      builtins: false,
      cache: { enabled: false },
      plugins: [{ package: fixture('plugins', 'structured'), trust: 'trusted' }],
    }),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--config', config],
    cwd: work.dir,
    env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  client = new Client({ name: 'toolshed-test', version: '1.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  work.cleanup();
});

describe('structured results over MCP', () => {
  it('lists title, icons and outputSchema', async () => {
    const { tools } = await client.listTools();
    const weather = tools.find((t) => t.name === 'weather')!;
    expect(weather.title).toBe('Weather report');
    expect(weather.icons?.[0]).toEqual({
      src: 'https://example.test/weather.png',
      mimeType: 'image/png',
      sizes: ['48x48'],
    });
    expect(weather.outputSchema).toMatchObject({ type: 'object', required: ['city', 'tempC'] });
  });

  it('returns structuredContent beside the JSON text', async () => {
    const result = await client.callTool({ name: 'weather', arguments: { city: 'Oslo' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      city: 'Oslo',
      tempC: 21,
      conditions: 'sun',
      hourly: [{ hour: 9, tempC: 18 }],
      station: null,
    });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it('answers a result that does not match with an error result', async () => {
    const result = await client.callTool({ name: 'weather_wrong', arguments: { city: 'Oslo' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(JSON.parse(textOf(result))).toMatchObject({ code: 'TOOL_RESULT_INVALID' });
  });
});
