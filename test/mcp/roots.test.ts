/**
 * MCP clients often start servers with cwd `/`; a client that offers roots
 * (`roots/list`) chooses where the tools work, unless --root or the config did.
 */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, tempDir, suiteHome } from '../helpers.js';
import { BIN, signal, textOf } from './setup.js';

let work: { dir: string; cleanup(): void };
let config: string;
let clientRoot: string;

beforeEach(() => {
  work = tempDir('toolshed-roots-');
  const app = path.join(work.dir, 'app');
  clientRoot = path.join(work.dir, 'opened-by-the-user');
  mkdirSync(app);
  mkdirSync(clientRoot);
  clientRoot = realpathSync(clientRoot);
  config = path.join(app, 'toolshed.config.mjs');
  writeFileSync(
    config,
    `export default ${JSON.stringify({ builtins: false, cache: { enabled: false }, plugins: [{ package: fixture('plugins', 'where'), trust: 'trusted' }] })};\n`,
  );
});
afterEach(() => work.cleanup());

async function connect(args: string[], roots: boolean) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--config', config, ...args],
    cwd: '/',
    env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client(
    { name: 'roots-test', version: '1.0.0' },
    roots ? { capabilities: { roots: { listChanged: false } } } : {},
  );
  const changed = signal();
  if (roots)
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: [{ uri: pathToFileURL(clientRoot).href, name: 'project' }],
    }));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.resolve());
  await client.connect(transport);
  const where = async () => JSON.parse(textOf(await client.callTool({ name: 'where', arguments: {} }))).cwd as string;
  return { client, changed: changed.promise, where, stderr: () => stderr };
}

describe('serve and MCP roots', () => {
  it("works in the client's first root when it offers roots", async () => {
    const server = await connect([], true);
    try {
      // The host reopens on the client's root and says so with tools/list_changed.
      await server.changed;
      expect(await server.where()).toBe(clientRoot);
      // stderr is another pipe than the protocol's: wait for the line.
      await expect.poll(() => server.stderr()).toContain(`root: ${clientRoot} (the MCP client's first root)`);
    } finally {
      await server.client.close();
    }
  });

  it('keeps the process cwd when the client offers no roots, and prints what it found on stderr', async () => {
    const server = await connect([], false);
    try {
      expect(await server.where()).toBe('/');
      await expect.poll(() => server.stderr()).toContain(`config: ${config}`);
      await expect.poll(() => server.stderr()).toContain('root: /\n');
    } finally {
      await server.client.close();
    }
  });

  it('--root wins over the client', async () => {
    const app = path.dirname(config);
    const server = await connect(['--root', app], true);
    try {
      expect(await server.where()).toBe(app);
      expect(server.stderr()).not.toContain("the MCP client's first root");
    } finally {
      await server.client.close();
    }
  });
});
