/**
 * `serve --watch` never reloads what the model's tools can write: with the file tools
 * on, the config and a local plugin inside the workspace are not watched, and the
 * server says so when it starts. `--watch-workspace` is the operator's explicit
 * choice to reload them anyway, and says what it means.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { BIN } from './setup.js';

let client: Client | undefined;
let work: ReturnType<typeof tempDir> | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  work?.cleanup();
});

function writePlugin(dir: string, version: string): void {
  writeFileSync(
    path.join(dir, 'index.js'),
    `export default { apiVersion: 1, tools: [{ name: 'live_${version}', toolset: 'live', description: 'Version ${version}.', parameters: { type: 'object' }, handler: () => 'running ${version}' }] };\n`,
  );
}

/** A workspace holding its config and a local plugin, served with `flags`; resolves once connected. */
async function serve(flags: string[]): Promise<{
  stderr: () => string;
  config: string;
  plugin: string;
  changes: () => number;
  nextChange: () => Promise<void>;
}> {
  work = tempDir('toolshed-watch-ws-');
  const plugin = path.join(work.dir, 'live');
  mkdirSync(plugin);
  writeFileSync(
    path.join(plugin, 'package.json'),
    JSON.stringify({
      name: 'toolshed-plugin-live',
      version: '1.0.0',
      type: 'module',
      main: 'index.js',
      toolshed: { apiVersion: 1 },
    }),
  );
  writePlugin(plugin, 'v1');
  const config = path.join(work.dir, 'toolshed.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      enable: ['file', 'live'],
      cache: { enabled: false },
      plugins: [{ package: './live', trust: 'trusted' }],
    }),
  );
  let stderr = '';
  let changes = 0;
  let waiting: (() => void) | undefined;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', ...flags, '--config', config],
    cwd: work.dir,
    env: {
      PATH: process.env.PATH ?? '',
      XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? '',
      XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? '',
    },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  client = new Client({ name: 'toolshed-test', version: '1.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
    waiting?.();
  });
  await client.connect(transport);
  // The host opens behind the answer to initialize: its "ready" line comes after the watch lines.
  await expect.poll(() => stderr).toContain('MCP over stdio ready');
  return {
    stderr: () => stderr,
    config,
    plugin,
    changes: () => changes,
    nextChange: () => new Promise<void>((resolve) => (waiting = resolve)),
  };
}

describe('serve --watch in a workspace the model can write', () => {
  it('watches nothing there, and says why and how to choose otherwise', async () => {
    const served = await serve(['--watch']);
    const log = served.stderr();
    expect(log).toContain('watching nothing');
    expect(log).toMatch(
      new RegExp(
        `not watching .*${served.config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*model's tools can write there.*--watch-workspace`,
      ),
    );
    expect(log).toContain(served.plugin);
  });

  it('--watch-workspace reloads them, and says what that means', async () => {
    const served = await serve(['--watch', '--watch-workspace']);
    expect(served.stderr()).toContain('--watch-workspace: files the model can write are reloaded');
    const changed = served.nextChange();
    writePlugin(served.plugin, 'v2');
    await changed;
    const names = (await client!.listTools()).tools.map((t) => t.name);
    expect(names).toContain('live_v2');
  });
});
