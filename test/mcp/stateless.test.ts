/**
 * `toolshed serve --http --stateless`: two replicas (separate processes)
 * behind a round-robin proxy (http-proxy-3) serve one MCP session whose
 * requests alternate between them; the todo plugin's lists live in ctx.session,
 * kept in a real Redis server both name in `state.store`, keyed by the session id the client sends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createProxyServer } from 'http-proxy-3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, suiteHome } from '../helpers.js';
import { BIN } from './setup.js';
import { FLEET_KEY, killLeftoversAfterAll, startStateServer, type StoreServer } from '../support/fleet.js';

killLeftoversAfterAll();

const work = tempDir('toolshed-stateless-');
let store: StoreServer;
const children: ChildProcess[] = [];
const replicas: string[] = [];
/** which replica answered each POST, in order */
const served: number[] = [];
let proxyServer: http.Server;
let proxyUrl: string;
const proxy = createProxyServer({ changeOrigin: true });

function replica(): Promise<string> {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--http', '127.0.0.1:0', '--stateless', '--config', path.join(work.dir, 'toolshed.config.json')],
    {
      cwd: work.dir,
      env: { ...suiteHome(), PATH: process.env.PATH ?? '', TOOLSHED_STATE_KEY: FLEET_KEY },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /stateless\) listening on (http:\/\/\S+)\/mcp/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', () => reject(new Error(`replica exited: ${stderr}`)));
  });
}

beforeAll(async () => {
  store = await startStateServer();
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"stateless-project","private":true}');
  writeFileSync(
    path.join(work.dir, 'toolshed.config.json'),
    JSON.stringify({ enable: ['todo'], cache: { enabled: false }, state: { store: store.url } }),
  );
  replicas.push(...(await Promise.all([replica(), replica()])));
  let next = 0;
  proxyServer = http.createServer((req, res) => {
    // The client's one GET (for a server stream, refused with 405) is fired without waiting, so it
    // would take a turn at a moment the test cannot know; only POSTs take turns.
    if (req.method !== 'POST') return void proxy.web(req, res, { target: replicas[0] });
    const index = next++ % replicas.length;
    served.push(index);
    proxy.web(req, res, { target: replicas[index] });
  });
  await new Promise<void>((resolve) => proxyServer.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxyServer.address() as AddressInfo).port}/mcp`;
}, 60_000);

afterAll(async () => {
  proxy.close();
  await new Promise((resolve) => proxyServer?.close(resolve));
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(
    children.map((child) =>
      child.exitCode !== null ? undefined : new Promise((resolve) => child.once('exit', resolve)),
    ),
  );
  await store?.stop();
  work.cleanup();
});

async function session(id: string): Promise<Client> {
  const client = new Client({ name: 'stateless-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(proxyUrl), { sessionId: id }));
  return client;
}

function todos(result: unknown): { sessionId: string; todos: Array<{ content: string; status: string }> } {
  return JSON.parse((result as { content: Array<{ text: string }> }).content[0]!.text);
}

describe('serve --http --stateless behind a round-robin proxy', () => {
  it('runs one session across both replicas, each call answered', async () => {
    const id = randomUUID();
    const client = await session(id);
    try {
      const start = served.length;
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['todo_read', 'todo_write']);
      const first = todos(
        await client.callTool({
          name: 'todo_write',
          arguments: {
            todos: [
              { content: 'plan', status: 'in_progress' },
              { content: 'ship', status: 'pending' },
            ],
          },
        }),
      );
      const read = todos(await client.callTool({ name: 'todo_read', arguments: {} }));
      const merged = todos(
        await client.callTool({
          name: 'todo_write',
          arguments: { merge: true, todos: [{ id: '1', content: 'plan', status: 'done' }] },
        }),
      );
      const last = todos(await client.callTool({ name: 'todo_read', arguments: {} }));
      // Five requests in a row went to alternating replicas.
      expect(served.slice(start)).toEqual([0, 1, 0, 1, 0].map((i) => (i + served[start]!) % 2));
      expect(first.sessionId).toBe(id);
      expect(read.todos).toEqual(first.todos);
      expect(merged.todos.map((t) => t.status)).toEqual(['done', 'pending']);
      expect(last).toEqual(merged);
    } finally {
      await client.close();
    }
  });

  it('keeps sessions apart: another session id sees its own (empty) list', async () => {
    const client = await session(randomUUID());
    try {
      expect(todos(await client.callTool({ name: 'todo_read', arguments: {} })).todos).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('answers GET (no server-to-client stream) with 405', async () => {
    const response = await fetch(`${replicas[0]}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(405);
  });
});
