/**
 * `serve --watch`: editing a plugin or the config reloads the host without a
 * restart, and connected clients get list_changed and then the new tools.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, suiteHome } from '../helpers.js';
import { BIN, textOf } from './setup.js';

const work = tempDir('toolshed-watch-');
const pluginDir = path.join(work.dir, 'live');
const configFile = path.join(work.dir, 'toolshed.config.json');
let client: Client;
let stderr = '';
let changes = 0;
let onChange: (() => void) | undefined;

function writePlugin(version: string): void {
  writeFileSync(
    path.join(pluginDir, 'index.js'),
    `export default { apiVersion: 1, tools: [{ name: 'live_${version}', toolset: 'live', description: 'Version ${version}.', parameters: { type: 'object' }, handler: () => 'running ${version}' }] };\n`,
  );
}

function writeConfig(extra: Record<string, unknown> = {}): void {
  writeFileSync(
    configFile,
    JSON.stringify({ builtins: false, plugins: [{ package: './live', trust: 'trusted' }], ...extra }),
  );
}

/** Resolves at the next list_changed notification. */
function nextChange(): Promise<void> {
  return new Promise((resolve) => {
    onChange = resolve;
  });
}

async function names(): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name);
}

beforeAll(async () => {
  mkdirSync(pluginDir);
  writeFileSync(
    path.join(pluginDir, 'package.json'),
    JSON.stringify({
      name: 'toolshed-plugin-live',
      version: '1.0.0',
      type: 'module',
      main: 'index.js',
      toolshed: { apiVersion: 1 },
    }),
  );
  writePlugin('v1');
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"watch-project","private":true}');
  writeConfig();
  // The edits below are the operator's (config trust would refuse them otherwise).
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--watch', '--trust-config', '--config', configFile],
    cwd: work.dir,
    env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  client = new Client({ name: 'toolshed-test', version: '1.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
    onChange?.();
  });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  work.cleanup();
});

describe('toolshed serve --watch', () => {
  it('serves the plugin as it is at startup', async () => {
    expect(await names()).toEqual(['live_v1']);
    await expect.poll(() => stderr).toContain(`watching ${configFile}`);
  });

  it('reloads a changed plugin: new manifest, new workers, list_changed', async () => {
    const changed = nextChange();
    writePlugin('v2');
    await changed;
    expect(await names()).toEqual(['live_v2']);
    // The new code runs: the old pool (with the old module loaded) was replaced.
    expect(textOf(await client.callTool({ name: 'live_v2', arguments: {} }))).toBe('running v2');
    const gone = await client.callTool({ name: 'live_v1', arguments: {} });
    expect(gone.isError).toBe(true);
  });

  it('reloads an edited config', async () => {
    const changed = nextChange();
    writeConfig({ disable: ['live_v2'] });
    await changed;
    expect(await names()).toEqual([]);
  });

  it('keeps serving the previous tools when the edited config is invalid', async () => {
    const before = changes;
    writeConfig({ plugins: 'not a list' });
    await expect.poll(() => stderr, { timeout: 20_000 }).toContain('reload failed, still serving the previous tools');
    expect(changes).toBe(before);
    expect(await names()).toEqual([]);
  });
});
