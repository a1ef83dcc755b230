/**
 * The reference MCP servers from npm as toolsets: their tools pass the three layers and are callable through dispatch.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ToolHost } from 'toolshed';
import { tempDir } from '../helpers.js';
import { exposedNames, FileHosts, server, serversHost, serverScript } from './setup.js';

const work = tempDir('toolshed-mcp-servers-');
const files = path.join(work.dir, 'files');
const memory = path.join(work.dir, 'memory');
let host: ToolHost;

beforeAll(async () => {
  for (const dir of [files, memory]) (await import('node:fs')).mkdirSync(dir);
  writeFileSync(path.join(files, 'hello.txt'), 'hello from the filesystem server\n');
  host = await serversHost({
    // Pasted as Claude Desktop has it: npx finds the installed package and runs it under node.
    everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
    filesystem: {
      command: 'node',
      args: [serverScript('filesystem'), files],
      grant: { fsRead: [files], fsWrite: [files] },
    },
    memory: {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
      env: { MEMORY_FILE_PATH: path.join(memory, 'graph.jsonl') },
      grant: { fsWrite: [memory] },
    },
  });
});

/** The hosts of a test's own config. */
const hosts = new FileHosts();
afterEach(() => hosts.release());

afterAll(async () => {
  await Promise.all([host?.close(), hosts.closeAll()]);
  work.cleanup();
});

describe('the reference servers as toolsets', () => {
  it('lists every server connected, each tool in its toolset mcp-<name>', async () => {
    const report = await host.refresh();
    for (const name of ['everything', 'filesystem', 'memory']) {
      expect(server(report, name).state).toBe('connected');
      expect(report.plugins.find((p) => p.name === `mcp:${name}`)).toMatchObject({
        status: 'loaded',
        trust: 'untrusted',
        tier: 'process',
        manifestSource: 'listed',
      });
    }
    expect(server(report, 'everything').server).toEqual({
      name: 'mcp-servers/everything',
      version: expect.any(String),
    });
    const names = await exposedNames(host);
    expect(names).toEqual(
      expect.arrayContaining([
        'echo',
        'get-sum',
        'get-env',
        'get-tiny-image',
        'read_text_file',
        'list_directory',
        'create_entities',
        'read_graph',
      ]),
    );
    const toolsets = Object.fromEntries(report.tools.map((t) => [t.name, t.toolset]));
    expect(toolsets).toMatchObject({
      'get-sum': 'mcp-everything',
      read_text_file: 'mcp-filesystem',
      create_entities: 'mcp-memory',
    });
    // The description and schema are the server's own.
    const [getSum] = (await host.definitions({ format: 'anthropic' })).filter((d) => d.name === 'get-sum');
    expect(getSum).toMatchObject({
      description: 'Returns the sum of two numbers',
      input_schema: { type: 'object', required: ['a', 'b'] },
    });
  });

  it('calls their tools through dispatch', async () => {
    expect(await host.dispatch('get-sum', '{"a":2,"b":3}')).toBe('The sum of 2 and 3 is 5.');
    expect(await host.dispatch('echo', { message: 'hi' })).toBe('Echo: hi');
    expect(await host.dispatch('read_text_file', { path: path.join(files, 'hello.txt') })).toBe(
      'hello from the filesystem server\n',
    );
    await host.dispatch('write_file', { path: path.join(files, 'new.txt'), content: 'written through toolshed' });
    expect(readFileSync(path.join(files, 'new.txt'), 'utf8')).toBe('written through toolshed');
  });

  it("keeps the memory server's graph where MEMORY_FILE_PATH says (inside its write grant)", async () => {
    const created = await host.call('create_entities', {
      entities: [{ name: 'toolshed', entityType: 'project', observations: ['hosts MCP servers'] }],
    });
    expect(created.ok).toBe(true);
    const graph = JSON.parse(await host.dispatch('read_graph', {})) as { entities: Array<{ name: string }> };
    expect(graph.entities.map((e) => e.name)).toEqual(['toolshed']);
    expect(existsSync(path.join(memory, 'graph.jsonl'))).toBe(true);
  });

  it("keeps the server's tool annotations, which hooks see on every call", async () => {
    const seen: unknown[] = [];
    const view = host.view({});
    try {
      view.use({
        beforeCall: (call) =>
          void seen.push({ tool: call.tool, plugin: call.plugin, tier: call.tier, annotations: call.annotations }),
      });
      expect(await view.dispatch('get-sum', { a: 1, b: 1 })).toBe('The sum of 1 and 1 is 2.');
    } finally {
      await view.close();
    }
    expect(seen).toEqual([
      {
        tool: 'get-sum',
        plugin: 'mcp:everything',
        tier: 'process',
        annotations: {
          title: 'Get Sum Tool',
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
      },
    ]);
  });

  it("validates arguments against the server's inputSchema before the call leaves the host", async () => {
    const outcome = await host.call('get-sum', { a: 2 });
    expect(outcome).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
    expect(outcome.ok === false && outcome.message).toContain('/b is required');
  });

  it("turns an isError result into TOOL_FAILED with the server's message", async () => {
    const outcome = await host.call('read_text_file', { path: '/etc/hostname' });
    expect(outcome).toMatchObject({ ok: false, code: 'TOOL_FAILED' });
    expect(outcome.ok === false && outcome.message).toMatch(/Access denied|outside allowed/i);
  });

  it('keeps rich content whole in host.call, and gives dispatch() text without base64', async () => {
    const image = await host.call('get-tiny-image', {});
    expect(image.ok).toBe(true);
    const blocks = image.content!.blocks;
    const png = blocks.find((b) => b.type === 'image')!;
    expect(png).toMatchObject({ type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) });
    const text = await host.dispatch('get-tiny-image', {});
    expect(text).toMatch(/\[image: image\/png, \d+ bytes\]/);
    expect(text).not.toContain(png.data as string);

    const structured = await host.call('get-structured-content', { location: 'Chicago' });
    expect(structured.ok && structured.content?.structured).toMatchObject({
      temperature: expect.any(Number),
      conditions: expect.any(String),
    });

    const links = await host.call('get-resource-links', { count: 2 });
    expect(links.ok && links.content!.blocks.filter((b) => b.type === 'resource_link')).toHaveLength(2);

    const embedded = await host.call('get-resource-reference', { resourceType: 'Text', resourceId: 1 });
    expect(embedded.ok && embedded.content!.blocks.find((b) => b.type === 'resource')).toMatchObject({
      resource: { uri: expect.any(String), text: expect.any(String) },
    });

    // A result that is one plain text block needs nothing beside its text.
    expect(await host.call('echo', { message: 'plain' })).toEqual({ ok: true, text: 'Echo: plain' });
  });

  it('drops content blocks over maxResultChars whole and says so in the text', async () => {
    const small = await hosts.open(
      { everything: { command: 'node', args: [serverScript('everything')] } },
      { config: { limits: { maxResultChars: 200 } } },
    );
    const outcome = await small.call('get-tiny-image', {});
    expect(outcome.ok).toBe(true);
    expect(outcome.content).toBeUndefined();
    expect(outcome.ok && outcome.text).toMatch(
      /RESULT_TRUNCATED: the result's content blocks \(\d+ characters\) exceed the limit of 200/,
    );
  });
});

describe('selection of server tools', () => {
  it('disables one tool by name, or a whole server by its toolset (which is then not started)', async () => {
    const narrow = await hosts.open(
      {
        everything: { command: 'node', args: [serverScript('everything')] },
        memory: {
          command: 'node',
          args: [serverScript('memory')],
          env: { MEMORY_FILE_PATH: path.join(memory, 'unused.jsonl') },
        },
      },
      { config: { disable: ['get-sum', 'mcp-memory'] } },
    );
    const report = await narrow.refresh();
    expect(report.tools.find((t) => t.name === 'get-sum')).toMatchObject({
      exposed: false,
      layer: 'selection',
      reason: 'disabled by config',
    });
    expect(await narrow.call('get-sum', { a: 1, b: 1 })).toMatchObject({ ok: false, code: 'TOOL_NOT_EXPOSED' });
    expect(await exposedNames(narrow)).toContain('echo');
    expect(server(report, 'memory')).toMatchObject({
      state: 'not started',
      reason: 'not started: its toolset mcp-memory is disabled',
    });
    expect(report.toolsets.find((t) => t.name === 'mcp-memory')).toMatchObject({ tools: 0 });
    expect(existsSync(path.join(memory, 'unused.jsonl'))).toBe(false);
  });

  it('selects a server by enable, and keeps `enabled: false` servers known but never started', async () => {
    const only = await hosts.open(
      {
        everything: { command: 'node', args: [serverScript('everything')], toolset: 'reference' },
        off: { command: 'node', args: [serverScript('everything')], enabled: false },
      },
      { config: { enable: ['reference', 'mcp-off'] } },
    );
    const report = await only.refresh();
    expect(server(report, 'off')).toMatchObject({
      state: 'not started',
      reason: 'not started: enabled is false in its config',
    });
    expect(report.tools.filter((t) => t.toolset === 'reference' && t.exposed).length).toBeGreaterThan(5);
  });

  it("starts a server reached through a config toolset's includes, and not one that nothing reaches", async () => {
    const included = await hosts.open(
      {
        memory: {
          command: 'node',
          args: [serverScript('memory')],
          env: { MEMORY_FILE_PATH: path.join(memory, 'included.jsonl') },
          grant: { fsWrite: [memory] },
        },
        everything: { command: 'node', args: [serverScript('everything')] },
      },
      {
        config: {
          toolsets: { research: { description: 'Remembering things', includes: ['mcp-memory'] } },
          enable: ['research'],
        },
      },
    );
    const report = await included.refresh();
    expect(server(report, 'memory').state).toBe('connected');
    expect(server(report, 'everything')).toMatchObject({
      state: 'not started',
      reason: 'not started: its toolset mcp-everything is not enabled',
    });
    expect((await exposedNames(included)).sort()).toEqual(
      report.tools
        .filter((t) => t.toolset === 'mcp-memory')
        .map((t) => t.name)
        .sort(),
    );
    expect(await exposedNames(included)).toContain('create_entities');
    expect(JSON.parse(await included.dispatch('read_graph', {}))).toEqual({ entities: [], relations: [] });
  });

  it("defers servers' tools behind tool_search (defer: ['mcp-*']), which finds and loads them for the session", async () => {
    const deferred = await hosts.open(
      {
        everything: { command: 'node', args: [serverScript('everything')] },
        memory: {
          command: 'node',
          args: [serverScript('memory')],
          env: { MEMORY_FILE_PATH: path.join(memory, 'deferred.jsonl') },
          grant: { fsWrite: [memory] },
        },
      },
      { config: { defer: ['mcp-*'] } },
    );
    expect(await exposedNames(deferred)).toEqual(['tool_search']);
    const found = JSON.parse(
      await deferred.dispatch(
        'tool_search',
        { query: 'add two numbers and return the sum', limit: 3 },
        { sessionId: 'chat-1' },
      ),
    ) as { tools: Array<{ name: string; toolset: string }> };
    expect(found.tools[0]).toMatchObject({ name: 'get-sum', toolset: 'mcp-everything' });
    // The session's list is tool_search plus what it found; another session's is still tool_search alone.
    expect((await deferred.definitions({ format: 'mcp', sessionId: 'chat-1' })).map((d) => d.name)).toEqual([
      'tool_search',
      ...found.tools.map((t) => t.name),
    ]);
    expect((await deferred.definitions({ format: 'mcp', sessionId: 'chat-2' })).map((d) => d.name)).toEqual([
      'tool_search',
    ]);
    expect(await deferred.dispatch('get-sum', { a: 4, b: 5 }, { sessionId: 'chat-1' })).toBe(
      'The sum of 4 and 5 is 9.',
    );
    expect(deferred.explain().tools.filter((t) => t.deferred).length).toBeGreaterThan(20);
  });

  it("holds a server's destructive tools for approval by their annotations (approve: { destructive: true })", async () => {
    const careful = await hosts.open(
      {
        filesystem: {
          command: 'node',
          args: [serverScript('filesystem'), files],
          grant: { fsRead: [files], fsWrite: [files] },
        },
      },
      { config: { approve: { destructive: true } } },
    );
    const target = path.join(files, 'approved.txt');
    expect(await careful.call('write_file', { path: target, content: 'x' })).toMatchObject({
      ok: false,
      code: 'APPROVAL_DENIED',
    });
    expect(existsSync(target)).toBe(false);
    expect((await careful.call('write_file', { path: target, content: 'x' }, { onApproval: () => true })).ok).toBe(
      true,
    );
    // read-only by its annotations: no approval asked
    expect((await careful.call('list_allowed_directories', {})).ok).toBe(true);
  });

  it('passes server descriptions through the cross-reference guard', async () => {
    const guarded = await hosts.open(
      { filesystem: { command: 'node', args: [serverScript('filesystem'), files], grant: { fsRead: [files] } } },
      { config: { disable: ['read_text_file'] } },
    );
    const report = await guarded.refresh();
    // server-filesystem's read_file says "DEPRECATED: Use read_text_file instead."
    expect(report.warnings).toContain('description of read_file mentions read_text_file, which is not exposed');
  });

  it('prefixes a tool whose name another tool has, and renames it in its sibling descriptions', async () => {
    const both = await hosts.open(
      {
        first: { command: 'node', args: [serverScript('filesystem'), files], grant: { fsRead: [files] } },
        second: {
          command: 'node',
          args: [serverScript('filesystem'), files],
          grant: { fsRead: [files] },
          prefix: 'fs2_',
        },
        third: {
          command: 'node',
          args: [serverScript('filesystem'), files],
          grant: { fsRead: [files] },
          prefix: false,
        },
      },
      { config: { enable: ['mcp-first', 'mcp-second', 'mcp-third'] } },
    );
    const report = await both.refresh();
    const names = await exposedNames(both);
    expect(names).toEqual(expect.arrayContaining(['read_text_file', 'fs2_read_text_file']));
    expect(server(report, 'second').renamed).toMatchObject({
      fs2_read_text_file: 'read_text_file',
      fs2_read_file: 'read_file',
    });
    const defs = await both.definitions({ format: 'mcp' });
    expect(defs.find((d) => d.name === 'fs2_read_file')!.description).toContain('Use fs2_read_text_file instead');
    // prefix: false keeps the names; the earlier definition wins and the conflict is reported.
    expect(report.conflicts.find((c) => c.name === 'read_text_file')).toMatchObject({
      winner: 'mcp:first',
      losers: ['mcp:third'],
      rule: 'config order',
    });
    expect(await both.dispatch('fs2_read_text_file', { path: path.join(files, 'hello.txt') })).toBe(
      'hello from the filesystem server\n',
    );
  });
});
