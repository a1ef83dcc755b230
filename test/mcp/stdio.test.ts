/**
 * Interop over stdio: the official SDK client spawns `toolshed serve` as a
 * child process, exactly as an MCP client application would.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, mcpProject, progressOnWire, recordIncoming, signal, textOf } from './setup.js';
import { suiteHome } from '../helpers.js';

// A short TTL: the server's refresh loop re-evaluates checks every 250 ms.
const project = mcpProject(100);
let client: Client;
let stderr = '';
/** What the client's transport received, in order (see recordIncoming). */
let wire: JSONRPCMessage[] = [];
const listChanged = signal();

beforeAll(async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--config', project.config],
    cwd: project.dir,
    env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  client = new Client({ name: 'toolshed-test', version: '1.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged.resolve());
  await client.connect(transport);
  wire = recordIncoming(transport);
});

afterAll(async () => {
  await client?.close();
  project.cleanup();
});

describe('toolshed serve over stdio', () => {
  it('declares tools.listChanged and lists the exposed tools in the mcp format', async () => {
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    expect(client.getServerVersion()?.name).toBe('toolshed');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'chatty', 'slow', 'shared_a', 'shared_b']));
    // Hidden by config and by availability: never listed.
    expect(names).not.toContain('loop');
    expect(names).not.toContain('needs_key');
    const typed = tools.find((t) => t.name === 'typed')!;
    expect(typed.inputSchema).toMatchObject({ type: 'object', required: ['path', 'mode'] });
  });

  it('calls a tool through dispatch and returns its text', async () => {
    const result = await client.callTool({ name: 'echo', arguments: { hello: 'mcp' } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({ hello: 'mcp' });
  });

  it('returns error envelopes as isError results carrying the code and message', async () => {
    const invalid = await client.callTool({ name: 'typed', arguments: { path: '' } });
    expect(invalid.isError).toBe(true);
    expect(JSON.parse(textOf(invalid))).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      error: expect.stringContaining('/mode'),
    });
    const failed = await client.callTool({ name: 'throws', arguments: {} });
    expect(JSON.parse(textOf(failed))).toEqual({
      code: 'TOOL_FAILED',
      error: expect.stringContaining('the kettle is empty'),
    });
    const unknown = await client.callTool({ name: 'ecco', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(JSON.parse(textOf(unknown))).toMatchObject({ code: 'UNKNOWN_TOOL', error: expect.stringContaining('echo') });
  });

  it("keeps a plugin's stdout off the protocol stream (it goes to stderr)", async () => {
    const result = await client.callTool({ name: 'noisy', arguments: {} });
    expect(textOf(result)).toBe('said it');
    // Worker output is relayed asynchronously; the next round trip gives it time to land.
    await client.ping();
    // Two writes, which may reach this side of the pipe in two reads: wait for each.
    await expect.poll(() => stderr).toContain('hello from a plugin');
    await expect.poll(() => stderr).toContain('and a raw write');
  });

  it('turns ctx.progress into progress notifications for a request with a progress token', async () => {
    const from = wire.length;
    const result = await client.callTool({ name: 'chatty', arguments: {} }, undefined, { onprogress: () => {} });
    expect(result.isError).toBeFalsy();
    const { progress, responseAt, lastProgressAt } = progressOnWire(wire.slice(from));
    // The first report precedes the nested call, so the server always writes it before the
    // result; the second may lose the race with the result (it is then not sent at all).
    expect(progress[0]).toEqual({ progress: 1, total: 2 });
    expect(lastProgressAt).toBeLessThan(responseAt);
    await expect.poll(() => stderr).toContain('[toolshed-plugin-kitchen/chatty] starting');
  });

  it('cancels a running call when the client aborts it, and keeps serving', async () => {
    const controller = new AbortController();
    const pending = client.callTool({ name: 'slow', arguments: { ms: 60_000 } }, undefined, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toThrow(/abort/i);
    // Both workers are free again: a cancelled call that kept running would hold one for a minute.
    const results = await Promise.all([
      client.callTool({ name: 'text', arguments: {} }),
      client.callTool({ name: 'chatty', arguments: {} }),
    ]);
    expect(textOf(results[0])).toBe('plain text');
    expect(results[1]!.isError).toBeFalsy();
  });

  it('sends tools/list_changed when a check flips, and the list follows', async () => {
    writeFileSync(path.join(project.dir, 'shared.mode'), 'false');
    await listChanged.promise;
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('shared_a');
    expect(names).not.toContain('shared_b');
    expect(names).toContain('echo');
  });
});
