/**
 * MCP servers behind `toolshed call` and `toolshed serve`: a pasted Claude
 * Desktop block works as is; results keep every content block; list changes,
 * progress and cancellation cross both hops.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixture, tempDir, suiteHome, toolshedMain, until } from '../helpers.js';
import { BIN, DYNAMIC, FileHosts, PROJECT, runCli, serverScript } from './setup.js';

const work = tempDir('toolshed-mcp-serve-');
const config = path.join(work.dir, 'toolshed.config.json');
const files = path.join(work.dir, 'files');
const memory = path.join(work.dir, 'memory');
let client: Client;
let direct: Client;
let directDynamic: Client;
let directFilesystem: Client;
let listChanged = 0;
const listChangedWaiters: Array<() => void> = [];
const hosts = new FileHosts();
afterEach(() => hosts.release());

beforeAll(async () => {
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"serve-project","private":true}');
  mkdirSync(files);
  mkdirSync(memory);
  writeFileSync(path.join(files, 'hello.txt'), 'hello through serve\n');
  writeFileSync(
    config,
    JSON.stringify({
      builtins: false,
      cache: { enabled: false },
      mcpServers: {
        everything: { command: 'node', args: [serverScript('everything')] },
        // Its add_tool adds tools at run time: accepted as they come (a new tool is otherwise held until accepted).
        dynamic: { command: 'node', args: [DYNAMIC], definitionChanges: 'accept' },
        filesystem: { command: 'node', args: [serverScript('filesystem'), files], grant: { fsRead: [files] } },
        memory: {
          command: 'node',
          args: [serverScript('memory')],
          env: { MEMORY_FILE_PATH: path.join(memory, 'graph.jsonl') },
          grant: { fsWrite: [memory] },
        },
      },
    }),
  );
  client = new Client({ name: 'downstream', version: '1.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged++;
    for (const resolve of listChangedWaiters.splice(0)) resolve();
  });
  // The same servers, straight: what a result must look like after the extra hop.
  direct = new Client({ name: 'direct', version: '1.0.0' });
  directDynamic = new Client({ name: 'direct', version: '1.0.0' });
  directFilesystem = new Client({ name: 'direct', version: '1.0.0' });
  await Promise.all([
    client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'serve', '--config', config],
        cwd: work.dir,
        env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
        stderr: 'ignore',
      }),
    ),
    direct.connect(
      new StdioClientTransport({ command: process.execPath, args: [serverScript('everything')], stderr: 'ignore' }),
    ),
    directDynamic.connect(new StdioClientTransport({ command: process.execPath, args: [DYNAMIC], stderr: 'ignore' })),
    directFilesystem.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [serverScript('filesystem'), files],
        stderr: 'ignore',
      }),
    ),
  ]);
});

afterAll(async () => {
  await hosts.closeAll();
  await client?.close();
  await direct?.close();
  await directDynamic?.close();
  await directFilesystem?.close();
  work.cleanup();
});

describe('toolshed call with a pasted Claude Desktop block', () => {
  const cwd = fixture('mcp-servers', 'desktop');
  const env = { ...suiteHome(), PATH: process.env.PATH ?? '' };

  it("lists and calls the servers' tools", async () => {
    // The fixture's config is the operator's: accepted as it is, so toolshed adds nothing to stderr on a first run
    // either. What the servers log there themselves is relayed, tagged with their name, when it arrives in time.
    // One real process: its exit code, and its stdout and stderr as a shell sees them.
    const call = await runCli(['call', 'get-sum', '{"a":2,"b":3}', '--trust-config'], { cwd, env });
    expect(call.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('[mcp:everything'))).toEqual([]);
    expect(call.stdout).toBe('The sum of 2 and 3 is 5.\n');
    expect(call.status).toBe(0);
    // Trusted now: the runs that only read go side by side, in this process.
    const [graph, allowed, summary] = await Promise.all([
      toolshedMain(['call', 'read_graph', '{}'], { cwd, env }),
      toolshedMain(['call', 'list_allowed_directories', '{}'], { cwd, env }),
      toolshedMain([], { cwd, env }),
    ]);
    expect(graph.code, graph.stderr).toBe(0);
    expect(JSON.parse(graph.stdout)).toEqual({ entities: [], relations: [] });
    expect(allowed.stdout).toBe(`Allowed directories:\n${cwd}\n`);
    // 13 tools, and 3 it lists only to a client that offers roots and elicitation (toolshed does; sampling needs an
    // onSampling).
    expect(summary.stdout).toMatch(/mcp:everything +16 tools · process tier · untrusted · stdio connected/);
    expect(summary.stdout).toContain('command: npx -y @modelcontextprotocol/server-everything');
    expect(summary.stdout).toMatch(
      /runs: npx @modelcontextprotocol\/server-everything: the installed @modelcontextprotocol\/server-everything \S+, run by node\n/,
    );
    expect(summary.stdout).toMatch(/mcp:memory +9 tools · process tier · untrusted · stdio connected/);
    expect(summary.stdout).toMatch(/mcp:filesystem +14 tools · process tier · untrusted · stdio connected/);
    // The builtins are there as without the block; the server's tools whose names they have get its prefix.
    expect(summary.stdout).toMatch(/exposed: .*get-sum.*read_file/);
    expect(summary.stdout).toContain(
      'renamed: read_file → filesystem_read_file, write_file → filesystem_write_file, search_files → filesystem_search_files',
    );
  });

  it("lists and explains the servers' tools", async () => {
    const [list, explain] = await Promise.all([
      toolshedMain(['list', '--format', 'names'], { cwd, env }),
      toolshedMain(['explain', 'get-sum'], { cwd, env }),
    ]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.split('\n')).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image', 'trigger-long-running-operation', 'read_file']),
    );
    expect(explain.code, explain.stderr).toBe(0);
    expect(explain.stdout).toMatch(/^get-sum: exposed\n/);
    expect(explain.stdout).toMatch(/plugin: +mcp:everything\n/);
    expect(explain.stdout).toMatch(/toolset: +mcp-everything\n/);
    expect(explain.stdout).toMatch(/tier: +process \(untrusted\)\n/);
    expect(explain.stdout).toMatch(/protections: env reduced to the grant, permission model/);
    expect(explain.stdout).toMatch(/server: +MCP over stdio, connected \(mcp-servers\/everything /);
    expect(explain.stdout).toMatch(/runs: +npx @modelcontextprotocol\/server-everything: the installed /);
    // What npx became is not a protection out of force.
    expect(explain.stdout).not.toMatch(/not in force: npx/);
  });
});

describe('toolshed serve in front of MCP servers', () => {
  it('serves their tools and calls them', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image', 'add_tool', 'slow']));
    // The server's annotations travel with its tools (the tool's own title among them).
    const served = (await client.listTools()).tools.find((t) => t.name === 'get-sum')!;
    const straight = (await direct.listTools()).tools.find((t) => t.name === 'get-sum')!;
    expect(served.annotations).toEqual({ ...straight.annotations, title: straight.title });
    const result = await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    expect(result.content).toEqual([{ type: 'text', text: 'The sum of 1 and 2 is 3.' }]);
  });

  it("serves the filesystem and memory servers' tools too", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['read_text_file', 'list_directory', 'create_entities', 'read_graph']),
    );
    expect(
      (await client.callTool({ name: 'read_text_file', arguments: { path: path.join(files, 'hello.txt') } })).content,
    ).toEqual([{ type: 'text', text: 'hello through serve\n' }]);
    const listing = { name: 'list_directory', arguments: { path: files } };
    expect(await client.callTool(listing)).toEqual(await directFilesystem.callTool(listing));
    await client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'served', entityType: 'test', observations: ['through toolshed serve'] }] },
    });
    const graph = (await client.callTool({ name: 'read_graph', arguments: {} })) as {
      content: Array<{ text: string }>;
      structuredContent?: { entities: unknown[] };
    };
    expect(JSON.parse(graph.content[0]!.text)).toMatchObject({
      entities: [{ name: 'served', entityType: 'test', observations: ['through toolshed serve'] }],
    });
  });

  it('passes every content block and structuredContent through unchanged', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['get-tiny-image', {}],
      ['get-structured-content', { location: 'New York' }],
      ['get-resource-links', { count: 3 }],
      ['get-resource-reference', { resourceType: 'Blob', resourceId: 2 }],
      ['get-annotated-message', { messageType: 'success', includeImage: true }],
    ];
    // The everything server stamps a dynamic resource with the time it made it
    // ("… created at 8:16:35 AM"), so two calls a second apart differ there and
    // only there: that stamp is compared as a shape, every other byte exactly.
    const withoutClock = (content: unknown): unknown =>
      JSON.parse(JSON.stringify(content), (key, value: unknown) => {
        if (typeof value !== 'string') return value;
        const unstamp = (text: string) => text.replace(/ created at [^\n]+$/, () => ' created at <time>');
        if (key === 'text') return unstamp(value);
        if (key === 'blob') {
          const text = Buffer.from(value, 'base64').toString('utf8');
          return /^Resource \d+: .* created at /.test(text) ? `<base64 of> ${unstamp(text)}` : value;
        }
        return value;
      });
    for (const [name, args] of calls) {
      const served = await client.callTool({ name, arguments: args });
      const straight = await direct.callTool({ name, arguments: args });
      expect(withoutClock(served.content), name).toEqual(withoutClock(straight.content));
      expect(served.structuredContent, name).toEqual(straight.structuredContent);
      expect(served.isError, name).toBeFalsy();
    }
    // The stamp is there to be hidden: the normalised reference still names its blob.
    const reference = await client.callTool({
      name: 'get-resource-reference',
      arguments: { resourceType: 'Blob', resourceId: 2 },
    });
    expect(JSON.stringify(withoutClock(reference.content))).toContain(
      '<base64 of> Resource 2: This is a base64 blob created at <time>',
    );
  });

  it('sends every kind of block, structuredContent and isError out as the server sent them', async () => {
    const calls: Array<[Client, string, Record<string, unknown>]> = [
      // text, image, audio, resource_link, embedded text and blob resources, with annotations and _meta
      [directDynamic, 'blocks', {}],
      [directDynamic, 'blocks', { error: true }],
      // a reference server's own error result: one text block, isError
      [directFilesystem, 'read_text_file', { path: '/etc/hostname' }],
      [directFilesystem, 'read_text_file', { path: path.join(files, 'missing.txt') }],
    ];
    for (const [straightClient, name, args] of calls) {
      const served = await client.callTool({ name, arguments: args });
      const straight = await straightClient.callTool({ name, arguments: args });
      expect(served, `${name} ${JSON.stringify(args)}`).toEqual(straight);
    }
    const straight = await directDynamic.callTool({ name: 'blocks', arguments: { error: true } });
    expect(straight.isError).toBe(true);
    expect((straight.content as Array<{ type: string }>).map((b) => b.type)).toEqual([
      'text',
      'image',
      'audio',
      'resource_link',
      'resource',
      'resource',
    ]);
  });

  it("relays the server's progress to the downstream client", async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    // The SDK client may drop a progress notification that arrives together with the
    // result (modelcontextprotocol/typescript-sdk#2580), on either hop; the others arrive in order.
    expect(progress[0]).toBe(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(JSON.stringify(result.content)).toContain('Long running operation completed');
  });

  it('sends list_changed downstream when a server changes its tools', async () => {
    const before = listChanged;
    const changed = new Promise<void>((resolve) => listChangedWaiters.push(resolve));
    expect((await client.callTool({ name: 'add_tool', arguments: { name: 'fresh_tool' } })).content).toEqual([
      { type: 'text', text: 'registered fresh_tool' },
    ]);
    await changed;
    expect(listChanged).toBeGreaterThan(before);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('fresh_tool');
    expect((await client.callTool({ name: 'fresh_tool', arguments: {} })).content).toEqual([
      { type: 'text', text: 'added fresh_tool answers' },
    ]);
  });

  it('cancels the call upstream when the downstream client cancels it', async () => {
    const stats = async () =>
      JSON.parse(
        ((await client.callTool({ name: 'stats', arguments: {} })).content as Array<{ text: string }>)[0]!.text,
      ) as { cancelled: number; calls: number };
    const before = await stats();
    const controller = new AbortController();
    // The fixture reports progress once the call runs inside it; cancel then.
    const call = client.callTool({ name: 'slow', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort('changed my mind'),
    });
    await expect(call).rejects.toThrow();
    await expect.poll(stats, { timeout: 5_000 }).toEqual({ calls: before.calls + 1, cancelled: before.cancelled + 1 });
  });
});

/**
 * One host of the fixture server, for the list-change test (which adds a tool) and the abort test
 * (which counts its slow calls); started on first use. definitionChanges 'accept': a tool new since
 * the first listing is otherwise held (rug-pull.test.ts). A re-list waits out its debounce on the clock.
 */
const sharedHosts = new FileHosts();
afterAll(() => sharedHosts.closeAll());
const dynamic = sharedHosts.dynamicOnce({ definitionChanges: 'accept' });

describe('list changes in the host', () => {
  it("re-lists on the server's list_changed and emits change with the new tool already exposed", async () => {
    const { host, clock } = await dynamic();
    const exposedAtChange: boolean[] = [];
    let onChange!: () => void;
    const changed = new Promise<void>((resolve) => {
      onChange = () => {
        void host.definitions({ format: 'mcp' }).then((defs) => {
          exposedAtChange.push(defs.some((d) => d.name === 'late_tool'));
          resolve();
        });
      };
      host.on('change', onChange);
    });
    expect(await host.dispatch('add_tool', { name: 'late_tool' })).toBe('registered late_tool');
    // The SDK sends list_changed without waiting for it: once it has set the re-list's 250 ms debounce, pass it.
    await until(() => (clock.next() ?? Infinity) <= clock.time + 250, {
      what: 'the re-list debounce after list_changed',
    });
    clock.advance(250);
    await changed;
    host.off('change', onChange);
    expect(exposedAtChange[0]).toBe(true);
    expect(await host.dispatch('late_tool', {})).toBe('added late_tool answers');
  });
});

describe('deadlines', () => {
  it('cancels the call upstream when its timeoutMs passes, and reports TOOL_TIMEOUT', async () => {
    const host = await hosts.open({ dynamic: { command: 'node', args: [DYNAMIC], timeoutMs: 400 } }, { cwd: PROJECT });
    const outcome = await host.call('slow', {});
    expect(outcome).toMatchObject({ ok: false, code: 'TOOL_TIMEOUT', message: 'slow timed out after 400 ms' });
    expect(JSON.parse(await host.dispatch('stats', {}))).toEqual({ calls: 1, cancelled: 1 });
  });

  it('cancels the call upstream when the caller aborts dispatch', async () => {
    const { host } = await dynamic();
    const controller = new AbortController();
    const outcome = await host.call('slow', {}, { signal: controller.signal, onProgress: () => controller.abort() });
    expect(outcome).toMatchObject({ ok: false, code: 'TOOL_CANCELLED' });
    await expect
      .poll(async () => JSON.parse(await host.dispatch('stats', {})), { timeout: 5_000 })
      .toEqual({ calls: 1, cancelled: 1 });
  });
});
