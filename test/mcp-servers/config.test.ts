/** The `mcpServers` config: validation, `init --from-claude-desktop`, tool names and schemas, execute_code. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createToolHost, ToolshedError } from 'toolshed';
import { serverTools } from '#internal/core/mcp-client/tools.js';
import { resolveServers } from '#internal/core/mcp-client/config.js';
import { resolveProgram } from '#internal/core/mcp-client/program.js';
import { restartDelay } from '#internal/core/mcp-client/restart-backoff.js';
import { probeDelay } from '#internal/core/mcp-client/probe.js';
import { tempDir, toolshedMain } from '../helpers.js';
import { FileHosts, PROJECT, serverScript } from './setup.js';

const hosts = new FileHosts();
afterEach(() => hosts.release());
afterAll(() => hosts.closeAll());

async function configError(mcpServers: unknown): Promise<ToolshedError> {
  const error = await createToolHost({ cwd: PROJECT, env: {}, config: { builtins: false, mcpServers } as never }).catch(
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolshedError);
  return error as ToolshedError;
}

describe('mcpServers validation', () => {
  it('refuses an entry with both a command and a url, or neither', async () => {
    expect((await configError({ both: { command: 'x', url: 'http://127.0.0.1:1/mcp' } })).code).toBe('CONFIG_INVALID');
    const neither = await configError({ neither: { args: ['x'] } });
    expect(neither.message).toContain('/mcpServers/neither');
  });

  it('names a key toolshed does not know, with its pointer', async () => {
    const error = await configError({ github: { command: 'npx', autoApprove: ['x'] } });
    expect(error.message).toContain('/mcpServers/github/autoApprove: is not an allowed property');
  });

  it('refuses an empty prefix (it would leave a conflicting name as it was)', async () => {
    const error = await configError({ gh: { command: 'npx', prefix: '' } });
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
    expect(error.message).toContain('/mcpServers/gh/prefix');
  });

  it('refuses a type that contradicts the entry', async () => {
    const error = await configError({ odd: { type: 'http', command: 'node' } });
    expect(error).toMatchObject({
      code: 'CONFIG_INVALID',
      message: "mcpServers.odd: type 'http' needs a url, not a command",
      data: { pointer: '/mcpServers/odd/type' },
    });
  });

  it('fills the defaults: toolset mcp-<name>, prefix <name>_, untrusted, the host timeout, the load timeout to start', () => {
    const [server] = resolveServers({
      dir: PROJECT,
      enable: ['all'],
      disable: [],
      toolsets: {},
      limits: { timeoutMs: 1234, loadTimeoutMs: 777 },
      mcpServers: { gh: { command: 'npx', args: ['-y', 'x'] } },
    } as never);
    expect(server).toMatchObject({
      name: 'gh',
      pluginName: 'mcp:gh',
      toolset: 'mcp-gh',
      prefix: 'gh_',
      trust: 'untrusted',
      timeoutMs: 1234,
      startTimeoutMs: 777,
      stdio: { command: 'npx', args: ['-y', 'x'], env: {}, cwd: PROJECT },
    });
    expect(server!.notStarted).toBeUndefined();
  });
});

describe('tool names and schemas from tools/list', () => {
  const server = { toolset: 'mcp-x', prefix: 'x_', timeoutMs: 1000, sandbox: false } as never;

  it('makes names valid for every provider and leaves out what it cannot take, saying why (a schema is compiled at first call, not here)', () => {
    const warnings: string[] = [];
    const tools = serverTools(
      server,
      [
        { name: 'git.status/short', description: 'Status.', inputSchema: { type: 'object' } },
        { name: 'git_status_short', description: 'Same name once cleaned.', inputSchema: { type: 'object' } },
        {
          name: 'broken',
          description: 'Bad schema.',
          inputSchema: { type: 'object', properties: { n: { type: 'nonsense' } } },
        },
        {
          name: 'modern',
          description: 'A 2020-12 schema.',
          inputSchema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: { a: { type: 'string' } },
          },
        },
      ],
      new Set(),
      warnings,
    );
    expect(tools.map((t) => [t.manifest.name, t.upstream])).toEqual([
      ['git_status_short', 'git.status/short'],
      ['broken', 'broken'],
      ['modern', 'modern'],
    ]);
    expect(warnings).toEqual([
      'tool git_status_short left out: its name becomes git_status_short, which another of its tools already has',
    ]);
    // The schema is kept as listed, read in the dialect its $schema names (an untagged one in MCP's default, 2020-12).
    expect(tools[2]!.manifest.parameters).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { a: { type: 'string' } },
    });
    expect(tools[2]!.manifest.dialect).toEqual({ dialect: '2020-12', from: '$schema' });
    expect(tools[0]!.manifest.dialect).toEqual({ dialect: '2020-12', from: 'untagged (MCP default)' });
  });
});

describe('what a stdio command runs', () => {
  const options = { cwd: PROJECT, configDir: PROJECT, path: process.env.PATH };

  it('runs npx of an installed package as its bin under this node, and anything else as written', () => {
    const npx = resolveProgram('npx', ['-y', '@modelcontextprotocol/server-everything', 'stdio'], options);
    expect(npx).toMatchObject({
      runtime: 'node',
      command: process.execPath,
      script: serverScript('everything'),
      scriptArgs: ['stdio'],
    });
    const node = resolveProgram('node', ['--no-warnings', serverScript('memory'), 'x'], options);
    expect(node).toMatchObject({
      runtime: 'node',
      nodeFlags: ['--no-warnings'],
      script: serverScript('memory'),
      scriptArgs: ['x'],
    });
    expect(resolveProgram('sh', ['-c', 'true'], options)).toMatchObject({ runtime: 'system', args: ['-c', 'true'] });
  });

  it('leaves npx as written when the installed version is not the one asked for, or nothing is installed', () => {
    const pinned = resolveProgram('npx', ['-y', '@modelcontextprotocol/server-everything@1.0.0'], options);
    expect(pinned).toMatchObject({ runtime: 'system', note: expect.stringContaining('does not satisfy 1.0.0') });
    const absent = resolveProgram('npx', ['-y', 'toolshed-no-such-mcp-package'], options);
    expect(absent).toMatchObject({
      runtime: 'system',
      note: expect.stringContaining('not installed next to the config, so npx would fetch it'),
    });
  });
});

describe('restarts', () => {
  it('wait 500 ms, then twice as long each time, never more than 30 s', () => {
    expect([0, 1, 2, 3, 5, 6, 10].map(restartDelay)).toEqual([500, 1000, 2000, 4000, 16_000, 30_000, 30_000]);
  });
});

describe('probes of an HTTP server', () => {
  it('come every probeIntervalMs (1 s by default) to 1.5 times it, never faster than every 100 ms', async () => {
    expect([0, 0.5, 1].map((random) => probeDelay(1_000, random))).toEqual([1_000, 1_250, 1_500]);
    const config = {
      dir: PROJECT,
      enable: ['all'],
      disable: [],
      toolsets: {},
      limits: { timeoutMs: 1, loadTimeoutMs: 1 },
    };
    const [plain, tuned] = resolveServers({
      ...config,
      mcpServers: {
        plain: { url: 'http://127.0.0.1:1/mcp' },
        tuned: { url: 'http://127.0.0.1:1/mcp', probeIntervalMs: 250 },
      },
    } as never);
    expect([plain!.http!.probeIntervalMs, tuned!.http!.probeIntervalMs]).toEqual([1_000, 250]);
    const error = await configError({ eager: { url: 'http://127.0.0.1:1/mcp', probeIntervalMs: 50 } });
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
    expect(error.message).toContain('/mcpServers/eager/probeIntervalMs');
  });
});

describe('toolshed init --from-claude-desktop', () => {
  it('imports the mcpServers block into a config that loads', async () => {
    const work = tempDir('toolshed-init-desktop-');
    try {
      const desktop = path.join(work.dir, 'claude_desktop_config.json');
      writeFileSync(
        desktop,
        JSON.stringify({
          globalShortcut: 'Ctrl+Space',
          mcpServers: {
            everything: { command: 'node', args: [serverScript('everything')], env: { EVERYTHING_TOKEN: 't' } },
            remote: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer x' } },
            legacy: { url: 'http://127.0.0.1:9/sse' },
            resting: { command: 'node', args: ['server.js'], disabled: true, autoApprove: ['a'] },
            'bad name!': { command: 'x' },
          },
        }),
      );
      // In this process: what init writes and prints, and a start of what it wrote (test/cli runs real processes).
      const init = await toolshedMain(['init', '--from-claude-desktop', desktop], { cwd: work.dir });
      expect(init.code, init.stderr).toBe(0);
      expect(init.stdout).toContain('imported 3 MCP servers from');
      expect(init.stdout).toContain('everything, remote, resting');
      expect(init.stdout).toContain('note: legacy: left out: it uses the legacy SSE transport');
      expect(init.stdout).toContain('note: resting: left out autoApprove (no toolshed meaning)');
      expect(init.stdout).toContain('note: "bad name!": left out');
      const written = JSON.parse(readFileSync(path.join(work.dir, '.toolshedrc.json'), 'utf8'));
      expect(written.mcpServers).toEqual({
        everything: { command: 'node', args: [serverScript('everything')], env: { EVERYTHING_TOKEN: 't' } },
        remote: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer x' } },
        resting: { command: 'node', args: ['server.js'], enabled: false },
      });
      const list = await toolshedMain(['list', '--format', 'names'], { cwd: work.dir });
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout.split('\n')).toEqual(expect.arrayContaining(['get-sum', 'echo', 'read_file']));
    } finally {
      work.cleanup();
    }
  });

  it('refuses a file without mcpServers, naming it', async () => {
    const work = tempDir('toolshed-init-desktop-');
    try {
      writeFileSync(path.join(work.dir, 'other.json'), '{"theme":"dark"}');
      const init = await toolshedMain(['init', '--from-claude-desktop', 'other.json'], { cwd: work.dir });
      expect(init.code).toBe(1);
      expect(init.stderr).toMatch(/CONFIG_INVALID: .*other\.json: no "mcpServers" object to import/);
    } finally {
      work.cleanup();
    }
  });
});

describe('execute_code', () => {
  it('calls the server tools codeExecution.tools names, and no others', async () => {
    const host = await hosts.open(
      { everything: { command: 'node', args: [serverScript('everything')] } },
      { config: { builtins: true, enable: ['code', 'mcp-everything'], codeExecution: { tools: ['echo'] } } },
    );
    const code = (await host.definitions({ format: 'mcp' })).find((d) => d.name === 'execute_code')!;
    expect(code.description).toContain('echo(args: { ');
    expect(code.description).not.toContain('"get-sum"(');
    const result = JSON.parse(
      await host.dispatch('execute_code', {
        code: "const said = await tools.echo({ message: 'from code' }); try { await tools['get-sum']({ a: 1, b: 2 }); } catch (e) { return [said, e.code]; }",
      }),
    );
    expect(result).toMatchObject({ status: 'ok', result: ['Echo: from code', 'UNKNOWN_TOOL'], toolCalls: 1 });
  });

  it('calls server tools from model-written code when the server is marked sandbox: true', async () => {
    const host = await hosts.open(
      { everything: { command: 'node', args: [serverScript('everything')], sandbox: true } },
      { config: { builtins: true, enable: ['code', 'mcp-everything'] } },
    );
    const code = (await host.definitions({ format: 'mcp' })).find((d) => d.name === 'execute_code')!;
    expect(code.description).toContain('"get-sum"(args: { ');
    const result = JSON.parse(
      await host.dispatch('execute_code', { code: "return await tools['get-sum']({ a: 20, b: 22 });" }),
    );
    expect(result).toMatchObject({ status: 'ok', result: 'The sum of 20 and 22 is 42.', toolCalls: 1 });
  });
});
