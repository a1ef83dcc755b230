/**
 * The console follows a reloading host (`serve --http --ui --watch`): a plugin edited on disk is a
 * change event (the plugin reloaded, its old tool removed, its new one exposed), and after the
 * reload the new host's calls still reach the event stream and its held calls the console.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteHome, tempDir } from '../helpers.js';
import { post, readEvents, type EventReader } from './helpers.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
const work = tempDir('toolshed-console-reload-');
const pluginDir = path.join(work.dir, 'live');
let child: ChildProcess;
let stderr = '';
let base: string;
let mcp: string;
let stream: EventReader;
let client: Client;

function writePlugin(version: string): void {
  writeFileSync(
    path.join(pluginDir, 'index.js'),
    `export default { apiVersion: 1, tools: [{ name: 'live_${version}', toolset: 'live', description: 'Version ${version}.', parameters: { type: 'object' }, handler: () => 'running ${version}' }] };\n`,
  );
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
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"reload-project","private":true}');
  const config = path.join(work.dir, 'toolshed.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      builtins: false,
      cache: { enabled: false },
      plugins: [{ package: './live', trust: 'trusted' }],
      approve: ['live'],
    }),
  );
  child = spawn(
    process.execPath,
    [BIN, 'serve', '--http', '127.0.0.1:0', '--ui', '--watch', '--trust-config', '--quiet', '--config', config],
    {
      cwd: work.dir,
      env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/watching /.test(stderr) && /console at /.test(stderr)) resolve();
    });
    child.once('exit', () => reject(new Error(`serve exited: ${stderr}`)));
  });
  base = /console at (\S+)/.exec(stderr)![1]!;
  mcp = /listening on (\S+\/mcp)/.exec(stderr)![1]!;
  stream = await readEvents(`${base}api/events`);
  client = new Client({ name: 'reload-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp)));
}, 60_000);

afterAll(async () => {
  stream?.close();
  await client?.close().catch(() => {});
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('close', resolve));
  }
  work.cleanup();
});

describe('console across a reload', () => {
  it('reports the reload as changes, and keeps seeing calls and holding approvals on the new host', {
    timeout: 60_000,
  }, async () => {
    writePlugin('v2');
    const change = await stream.next(
      (e) =>
        e.event === 'change' &&
        (e.data as { changes: Array<{ name: string }> }).changes.some((c) => c.name === 'live_v2'),
      30_000,
    );
    const changes = (change.data as { changes: unknown[] }).changes;
    expect(changes).toContainEqual({
      kind: 'tool',
      name: 'live_v1',
      from: 'exposed',
      to: 'absent',
      text: 'live_v1 removed',
    });
    expect(changes).toContainEqual({
      kind: 'tool',
      name: 'live_v2',
      from: 'absent',
      to: 'exposed',
      text: 'live_v2 exposed',
    });
    expect(changes).toContainEqual(
      expect.objectContaining({ kind: 'plugin', name: 'toolshed-plugin-live', text: 'reloaded (1 tool)' }),
    );

    const overview = (await (await fetch(`${base}api/overview`)).json()) as { tools: Array<{ name: string }> };
    expect(overview.tools.map((t) => t.name)).toEqual(['live_v2']);

    const running = client.callTool({ name: 'live_v2', arguments: {} });
    const held = await stream.next((e) => e.event === 'approval' && (e.data as { tool: string }).tool === 'live_v2');
    expect((await post(`${base}api/approvals/${(held.data as { id: string }).id}`, { approved: true })).status).toBe(
      200,
    );
    expect(((await running).content as Array<{ text: string }>)[0]!.text).toBe('running v2');
    const call = await stream.next((e) => e.event === 'call' && (e.data as { tool: string }).tool === 'live_v2');
    expect(call.data).toMatchObject({ code: 'OK', plugin: 'toolshed-plugin-live' });
  });
});
