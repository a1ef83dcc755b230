/**
 * `toolshed serve` over stdio answers at once: `initialize` before the
 * plugins have loaded, `tools/list` as soon as they have (an MCP server that
 * is slow to start never holds it up: its tools follow with list_changed).
 * What arrives before the host is open is held to the config's size limit
 * all the same. And the last JSON-RPC conformance gaps: a line that is not
 * JSON gets -32700, arguments that are not an object -32602.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { suiteHome } from '../helpers.js';
import { BIN, kitchenConfig, kitchenProject, signal } from './setup.js';

const SLOW_SERVER = fileURLToPath(new URL('./fixtures/slow-server/server.js', import.meta.url));
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A project whose config loads the kitchen fixture, plus `extra`. */
function project(extra: Record<string, unknown> = {}): { dir: string; config: string } {
  const work = kitchenProject('toolshed-fast-start-', [], extra);
  cleanups.push(() => work.cleanup());
  return { dir: work.dir, config: work.config };
}

/** A project whose only plugin's import waits until `open()`: the host cannot be open before. */
function gatedProject(extra: Record<string, unknown> = {}): { dir: string; config: string; open(): void } {
  const { dir, config } = project();
  const gate = path.join(dir, 'gate.open');
  const plugin = path.join(dir, 'gated');
  mkdirSync(plugin);
  writeFileSync(
    path.join(plugin, 'package.json'),
    '{"name":"gated","version":"1.0.0","type":"module","main":"index.js","toolshed":{"apiVersion":1}}',
  );
  writeFileSync(
    path.join(plugin, 'index.js'),
    `import { existsSync } from 'node:fs';\nawait new Promise((resolve) => { const check = setInterval(() => { if (existsSync(${JSON.stringify(gate)})) { clearInterval(check); resolve(); } }, 20); });\nexport default { apiVersion: 1, tools: [{ name: 'gated', description: 'Loads when let in.', parameters: { type: 'object' }, handler: (args) => args }] };\n`,
  );
  writeFileSync(
    config,
    JSON.stringify({
      builtins: false,
      cache: { enabled: false },
      plugins: [{ package: plugin, trust: 'trusted' }],
      ...extra,
    }),
  );
  return { dir, config, open: () => writeFileSync(gate, '') };
}

/** `toolshed serve` as a child speaking raw lines: what it wrote, in order, stdout and stderr in one log. */
function rawServe(dir: string, config: string) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, 'serve', '--config', config], {
    cwd: dir,
    env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
  });
  const events: Array<{ stream: 'out' | 'err'; line: string }> = [];
  const waiters: Array<() => void> = [];
  const collect = (stream: 'out' | 'err') => {
    let buffer = '';
    return (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
        events.push({ stream, line: buffer.slice(0, newline) });
        buffer = buffer.slice(newline + 1);
        for (const wake of waiters.splice(0)) wake();
      }
    };
  };
  child.stdout.on('data', collect('out'));
  child.stderr.on('data', collect('err'));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanups.push(async () => {
    child.stdin.end();
    child.kill();
    await exited;
  });
  const replies = () =>
    events
      .filter((e) => e.stream === 'out')
      .map((e) => JSON.parse(e.line) as { id?: unknown; result?: any; error?: { code: number; message: string } });
  return {
    events,
    send: (message: unknown) =>
      child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`),
    /** waits until a reply with `id` was written, and returns it */
    async reply(id: unknown) {
      for (;;) {
        const found = replies().find((r) => r.id === id);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    /** the position of the first event matching `test` */
    at: (test: (e: { stream: string; line: string }) => boolean) => events.findIndex(test),
  };
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'fast-start-test', version: '1.0.0' },
  },
};
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

describe('serve over stdio starts answering at once', () => {
  it('answers initialize before the plugins have loaded, and lists them once they have', async () => {
    const { dir, config, open } = gatedProject();
    const serve = rawServe(dir, config);
    serve.send(initialize);
    const answer = await serve.reply(1);
    expect(answer.result.serverInfo.name).toBe('toolshed');
    expect(serve.at((e) => e.stream === 'err' && e.line.includes('MCP over stdio ready'))).toBe(-1);
    serve.send(initialized);
    serve.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    open();
    const listed = await serve.reply(2);
    expect(
      listed.result.tools.map((t: { name: string }) => t.name),
      JSON.stringify(serve.events),
    ).toEqual(['gated']);
  });

  it('holds a large message that arrives while the host opens to the limit in its config', async () => {
    const { dir, config, open } = gatedProject({ serve: { maxMessageBytes: 64 * 1024 } });
    const serve = rawServe(dir, config);
    serve.send(initialize);
    await serve.reply(1);
    serve.send(initialized);
    serve.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'gated', arguments: { content: 'z'.repeat(70 * 1024) } },
    });
    serve.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'gated', arguments: { small: true } } });
    open();
    const refused = await serve.reply(2);
    expect(refused.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('over the limit of 65536 bytes'),
    });
    // The message after it waited in line and was served in order.
    expect(JSON.parse((await serve.reply(3)).result.content[0].text)).toEqual({ small: true });
  });

  it('lists the plugins without waiting for a slow MCP server, whose tools follow with list_changed', async () => {
    // The slow server starts serving only once the test opens its gate, after the first list (its
    // sandbox lets it read the project folder, where the gate is, and nothing else of ours).
    const { dir, config } = project();
    const gate = path.join(dir, 'slow.open');
    writeFileSync(
      config,
      JSON.stringify(
        kitchenConfig([], {
          mcpServers: { slow: { command: process.execPath, args: [SLOW_SERVER, gate], grant: { fsRead: [dir] } } },
        }),
      ),
    );
    const client = new Client({ name: 'fast-start-test', version: '1.0.0' });
    const changed = signal();
    client.setNotificationHandler('notifications/tools/list_changed', () => changed.resolve());
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'serve', '--config', config],
        cwd: dir,
        env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
        stderr: 'pipe',
      }),
    );
    cleanups.push(() => client.close());
    const first = (await client.listTools()).tools.map((t) => t.name);
    expect(first).toContain('echo');
    expect(first).not.toContain('slow_hello');
    writeFileSync(gate, '');
    await changed.promise;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'slow_hello']));
  });
});

describe('JSON-RPC conformance over stdio', () => {
  it('answers a line that is not JSON with -32700, and arguments that are not an object with -32602', async () => {
    const { dir, config } = project();
    const serve = rawServe(dir, config);
    serve.send(initialize);
    await serve.reply(1);
    serve.send(initialized);
    serve.send('{"jsonrpc":"2.0","id":2,"method":"tools/list"');
    expect((await serve.reply(null)).error).toMatchObject({
      code: -32700,
      message: expect.stringContaining('Parse error'),
    });
    serve.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: 'not an object' } });
    expect((await serve.reply(3)).error).toMatchObject({ code: -32602 });
    serve.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: [1, 2] } });
    expect((await serve.reply(4)).error).toMatchObject({ code: -32602 });
    serve.send({ id: 5, hello: 'not JSON-RPC' });
    expect((await serve.reply(5)).error).toMatchObject({ code: -32600 });
    // Still serving.
    serve.send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'echo', arguments: { ok: true } } });
    expect(JSON.parse((await serve.reply(6)).result.content[0].text)).toEqual({ ok: true });
  });
});
