/**
 * The published package as a user meets it: the tarball packed once per run and installed
 * into two fresh apps (app.ts, pack-setup.ts); the CLI, the MCP server and a TypeScript plugin
 * run in the first, and each agent framework's previous and current major, installed strictly
 * beside the packed toolshed, runs one agent turn through its adapter and type-checks against
 * the app's framework. One file, so one worker waits for the apps while the other runs the rest
 * of the suite. The previous majors run in a folder of their own inside the first app, so the
 * CLI tests, which add a config to that app's root, do not change what they see.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, toolCall } from '../adapters/scripted-openai.js';
import { fixture } from '../helpers.js';
import {
  CURRENT,
  ENV,
  type Framework,
  lockedVersion,
  NPM_ENV,
  packedApps,
  PREVIOUS,
  REPO,
  repoPkg,
  run,
  runAsync,
  TSC,
} from './app.js';

let app: string;
let appRoot: string;
let installed: string;
let bin: string;

beforeAll(async () => {
  ({ app, installed, bin } = await packedApps());
  appRoot = path.dirname(app);
}, 600_000);

describe('the published manifest', () => {
  it('builds in prepack, has no prepare, workspaces, test files, vitest configs or build scripts', () => {
    const pkg = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    expect(pkg.scripts.prepare).toBeUndefined();
    expect(pkg.scripts.prepack).toBe('npm run build');
    expect(pkg.workspaces).toBeUndefined();
    const files = (readdirSync(installed, { recursive: true }) as string[]).map((f) => f.split(path.sep).join('/'));
    expect(
      files.filter((f) => /(^|\/)(test|tests|__tests__)(\/|$)|\.test\.[cm]?[jt]s$|vitest\.config|^scripts\//.test(f)),
    ).toEqual([]);
    expect(files.filter((f) => /^(core|sandbox|bench|examples)\//.test(f))).toEqual([]);
  });

  it('has a LICENSE, the docs the README links to, main, types, repository and keywords', () => {
    const pkg = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    expect(readFileSync(path.join(installed, 'LICENSE'), 'utf8')).toContain('MIT License');
    const links = [...readFileSync(path.join(installed, 'README.md'), 'utf8').matchAll(/\]\(((?!https?:)[^)#]+)/g)].map(
      (m) => m[1]!,
    );
    expect(links.length).toBeGreaterThan(3);
    for (const link of links) expect(existsSync(path.join(installed, link)), link).toBe(true);
    expect(existsSync(path.join(installed, pkg.main))).toBe(true);
    expect(existsSync(path.join(installed, pkg.types))).toBe(true);
    expect(pkg.repository.url).toMatch(/^git\+https:\/\//);
    expect(pkg.keywords).toEqual(expect.arrayContaining(['mcp', 'llm']));
  });

  it('ships every source map with its sources', () => {
    const maps = (readdirSync(path.join(installed, 'dist'), { recursive: true }) as string[]).filter((f) =>
      f.endsWith('.map'),
    );
    expect(maps.length).toBeGreaterThan(10);
    for (const map of maps) {
      const parsed = JSON.parse(readFileSync(path.join(installed, 'dist', map), 'utf8'));
      expect(parsed.sourcesContent?.length, map).toBe(parsed.sources.length);
    }
  });
});

describe('the CLI in a fresh app', () => {
  it('toolshed list: every first-party toolset loads; stderr holds only the one-line config trust note', () => {
    const result = run(bin, ['list', '--format', 'names'], app);
    // A first run in a user's app explains the trust step in one line: "no config here" is recorded too.
    expect(result.stderr).toMatch(/^toolshed: no config in [^\n]*toolshed trust\n$/);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual(
      expect.arrayContaining(['read_file', 'search_files', 'terminal', 'todo_write', 'web_fetch', 'execute_code']),
    );
    const summary = run(bin, ['--strict'], app);
    expect(summary.code, summary.stderr).toBe(0);
    expect(summary.stdout).toContain('plugins: 6 loaded, 0 failed');
    expect(summary.stdout).toContain(`root: ${realpathSync(app)}`);
  });

  it('toolshed call read_file reads a file of the app', () => {
    const result = run(bin, ['call', 'read_file', '{"path":"notes.txt"}'], app);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/1\|first line of the notes/);
  });

  it('the first-party tools built on toolshed/toolkit run: execute_code (its code runtime), todo_write (its list in ctx.session)', () => {
    const code = run(
      bin,
      [
        'call',
        'execute_code',
        JSON.stringify({
          code: 'return (await tools.todo_write({ todos: [{ id: "1", content: "ship", status: "pending" }] })).counts',
        }),
      ],
      app,
    );
    expect(code.code, code.stdout + code.stderr).toBe(0);
    expect(JSON.parse(code.stdout)).toMatchObject({ result: expect.objectContaining({ pending: 1 }) });
  });

  it('a third-party plugin imports toolshed/toolkit by name, typed by its own .d.ts', () => {
    const dir = path.join(app, 'toolkit-plugin');
    mkdirSync(dir);
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({
        name: 'toolkit-plugin',
        version: '1.0.0',
        type: 'module',
        main: 'index.js',
        toolshed: { apiVersion: 1 },
      }),
    );
    writeFileSync(
      path.join(dir, 'index.ts'),
      [
        "import { defineTool } from 'toolshed/plugin';",
        "import { probeSandbox, protectedBy, terminalSandboxPlan, type TerminalSandboxPlan } from 'toolshed/toolkit';",
        "const guarded = defineTool({ name: 'guarded', description: 'Whether a path is protected.', parameters: { type: 'object' }, codeCallable: true,",
        '  handler: (_args, ctx) => {',
        "    const plan: TerminalSandboxPlan = terminalSandboxPlan({ sandbox: 'off' }, probeSandbox());",
        "    return { sandboxed: plan.sandboxed, protectedBy: protectedBy(`${ctx.cwd}/.git/hooks/x`, [{ kind: 'name', value: '.git/hooks', why: 'git runs it' }])?.value ?? null };",
        '  } });',
        'export default { apiVersion: 1, tools: [guarded] };',
      ].join('\n'),
    );
    const check = run(
      process.execPath,
      [
        TSC,
        '--strict',
        '--target',
        'ES2022',
        '--module',
        'NodeNext',
        '--moduleResolution',
        'NodeNext',
        '--types',
        'node',
        '--skipLibCheck',
        path.join(dir, 'index.ts'),
      ],
      dir,
    );
    expect(check.stdout + check.stderr).toBe('');
    writeFileSync(
      path.join(dir, 'toolshed.config.mjs'),
      "export default { builtins: false, plugins: [{ package: '.', trust: 'trusted' }] };\n",
    );
    expect(run(bin, ['trust'], dir)).toMatchObject({ code: 0 });
    const called = run(bin, ['call', 'guarded', '{}'], dir);
    expect(called.code, called.stdout + called.stderr).toBe(0);
    expect(JSON.parse(called.stdout)).toEqual({ sandboxed: false, protectedBy: '.git/hooks' });
  });

  it("the model's file tools cannot change toolshed's install in the app, nor add a builtin plugin", () => {
    for (const file of [
      'node_modules/toolshed/plugins/evil/index.js',
      'node_modules/toolshed/dist/core/index.js',
      'node_modules/piscina/package.json',
      'toolshed.config.mjs',
    ]) {
      const result = run(
        bin,
        ['call', 'write_file', JSON.stringify({ path: file, content: 'export default {};\n' })],
        app,
      );
      expect(result.code, file).toBe(1);
      expect(JSON.parse(result.stdout), file).toMatchObject({ code: 'PERMISSION_DENIED' });
    }
    expect(existsSync(path.join(installed, 'plugins', 'evil'))).toBe(false);
    const summary = run(bin, [], app);
    expect(summary.stdout).toContain(
      `${realpathSync(path.join(app, 'node_modules'))} — it holds toolshed and the packages the host and its workers run`,
    );
    const written = run(bin, ['call', 'write_file', '{"path":"src/ok.txt","content":"fine"}'], app);
    expect(written.code, written.stdout).toBe(0);
  });

  it('toolshed --version', () => {
    expect(run(bin, ['--version'], app)).toMatchObject({ code: 0, stdout: `${repoPkg.version}\n` });
  });

  it('identity from the package: explain --as applies an access rule, auth --status reads the login, the audit log gets its line', () => {
    const dir = path.join(app, 'identity');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'notes.txt'), 'a note\n');
    const log = path.join(appRoot, 'audit.jsonl');
    const config = path.join(dir, 'toolshed.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        access: [{ name: 'eng', when: { claims: { groups: 'eng' } }, enable: ['file'] }],
        audit: { to: log },
        mcpServers: { remote: { url: 'http://127.0.0.1:9/mcp' } },
      }),
    );
    const flags = ['--config', config, '--trust-config'];
    const explained = run(bin, ['explain', '--as', '{"sub":"alice","groups":["eng"]}', '--json', ...flags], dir);
    expect(explained.code, explained.stderr).toBe(0);
    expect(JSON.parse(explained.stdout).access).toMatchObject({ subject: 'alice', rule: 'eng' });
    const refused = run(bin, ['explain', '--as', 'mallory', ...flags], dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('ACCESS_DENIED');
    expect(run(bin, ['auth', 'remote', '--status', ...flags], dir)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('remote: not authorized (run toolshed auth remote)'),
    });
    expect(run(bin, ['call', 'read_file', '{"path":"notes.txt"}', ...flags], dir).code).toBe(0);
    const lines = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([expect.objectContaining({ tool: 'read_file', code: 'OK', plugin: '@toolshed/file' })]);
    expect(statSync(log).mode & 0o777).toBe(0o600);
  });

  it('toolshed serve, through the MCP SDK client, with the documented npx snippet and cwd /', async () => {
    writeFileSync(path.join(app, 'toolshed.config.mjs'), "export default { root: '.', enable: ['file'] };\n");
    // toolshed already ran here with no config (recorded as such): the operator accepts the config they added.
    expect(run(bin, ['trust'], app)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('a config appeared where there was none: ./toolshed.config.mjs'),
    });
    // docs/embedding.md:
    // {"command":"npx","args":["-y","--prefix","/path/to/app","toolshed","serve","--config","/path/to/app/toolshed.config.mjs"]}
    const transport = new StdioClientTransport({
      command: 'npx',
      args: ['-y', '--prefix', app, 'toolshed', 'serve', '--config', path.join(app, 'toolshed.config.mjs')],
      cwd: '/',
      env: { ...ENV, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'tarball-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['patch', 'read_file', 'search_files', 'write_file']);
      const result = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
      expect(JSON.stringify(result.content)).toContain('first line of the notes');
      expect(stderr).toContain(`config: ${path.join(app, 'toolshed.config.mjs')}`);
    } finally {
      await client.close();
    }
    expect(existsSync('/node_modules/.cache/toolshed')).toBe(false);
  });

  it('toolshed ui: one URL line, the page and api/overview from the installed package, exit 0 on SIGTERM', async () => {
    const dir = path.join(app, 'console');
    mkdirSync(dir);
    const config = path.join(dir, 'toolshed.config.json');
    writeFileSync(config, JSON.stringify({ enable: ['file'] }));
    const child = spawn(bin, ['ui', '--http', '127.0.0.1:0', '--config', config, '--trust-config'], {
      cwd: dir,
      env: ENV,
    });
    let stdout = '';
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = /^(http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(stdout);
        if (line) resolve(line[1]!);
      });
      child.once('exit', () => reject(new Error(`toolshed ui exited: ${stdout}`)));
    });
    try {
      const page = await (await fetch(url)).text();
      // The package serves the page its build made (dist/console), or says it was not built.
      if (existsSync(path.join(REPO, 'dist', 'console', 'index.html'))) {
        const script = /<script[^>]+src="([^"]+)"/.exec(page);
        expect(script, page).not.toBeNull();
        const asset = await fetch(new URL(script![1]!, url));
        expect(asset.status).toBe(200);
        expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      } else expect(page).toContain('was not built');
      const overview = (await (await fetch(`${url}api/overview`)).json()) as {
        version: string;
        tools: Array<{ name: string }>;
      };
      expect(overview.version).toBe(repoPkg.version);
      expect(overview.tools.map((t) => t.name)).toContain('read_file');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stdout).toBe(`${url}\n`);
  });
});

describe('a TypeScript plugin against the published types (docs/plugins.md)', () => {
  let plugin: string;
  beforeAll(() => {
    plugin = path.join(app, 'greet-plugin');
    cpSync(fixture('typescript-plugin'), plugin, { recursive: true });
  });

  it('type-checks (with @types/node, for node:fs/promises) under nodenext, node16 and bundler, and builds', () => {
    const build = run(process.execPath, [TSC, '-p', plugin], plugin);
    expect(build.stdout + build.stderr).toBe('');
    expect(build.code).toBe(0);
    for (const [module, resolution] of [
      ['Node16', 'Node16'],
      ['ESNext', 'Bundler'],
    ]) {
      const check = run(
        process.execPath,
        [TSC, '-p', plugin, '--noEmit', '--module', module!, '--moduleResolution', resolution!],
        plugin,
      );
      expect(check.stdout + check.stderr, resolution).toBe('');
    }
  });

  it('runs its unit tests with createTestContext', () => {
    const compiled = run(process.execPath, [TSC, '-p', path.join(plugin, 'tsconfig.test.json')], plugin);
    expect(compiled.stdout + compiled.stderr).toBe('');
    // The files, as the package's `test` script names them (dist-test/*.test.js): given a folder, Node 22+ runs its
    // index.js instead.
    const files = readdirSync(path.join(plugin, 'dist-test')).filter((f) => f.endsWith('.test.js'));
    expect(files.length).toBeGreaterThan(0);
    // TAP, named: Node 23+ prints its spec reporter by default even when not on a terminal.
    const tests = run(
      process.execPath,
      ['--test', '--test-reporter=tap', ...files.map((f) => path.join(plugin, 'dist-test', f))],
      plugin,
    );
    expect(tests.code, tests.stdout + tests.stderr).toBe(0);
    expect(tests.stdout).toMatch(/# pass 2/);
  });

  it("loads itself through its dev config (plugins: ['.']), once trusted: the app it sits in is a workspace toolshed ran in", () => {
    const refused = run(bin, ['list', '--format', 'names', '--strict'], plugin);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is not trusted on first use');
    expect(run(bin, ['trust'], plugin)).toMatchObject({ code: 0 });
    const list = run(bin, ['list', '--format', 'names', '--strict'], plugin);
    expect(list).toMatchObject({ code: 0, stdout: 'farewell\ngreet\n' });
    expect(run(bin, ['call', 'greet', '{"name":"Ada","shout":true}'], plugin)).toMatchObject({
      code: 0,
      stdout: 'HELLO, ADA!\n',
    });
  });

  it('types the host API: definitions() per format, and misuse is an error', () => {
    const file = path.join(app, 'host.ts');
    writeFileSync(
      file,
      [
        "import { createToolHost, type AnthropicTool, type OpenAITool } from 'toolshed';",
        'const host = await createToolHost({ root: process.cwd() });',
        "const openai: OpenAITool[] = await host.definitions({ format: 'openai' });",
        "const anthropic: AnthropicTool[] = await host.definitions({ format: 'anthropic' });",
        '// @ts-expect-error an Anthropic tool is not an OpenAI tool',
        "const wrong: OpenAITool[] = await host.definitions({ format: 'anthropic' });",
        'console.log(openai.length, anthropic.length, wrong.length);',
        'await host.close();',
      ].join('\n'),
    );
    for (const [module, resolution] of [
      ['NodeNext', 'NodeNext'],
      ['Node16', 'Node16'],
      ['ESNext', 'Bundler'],
    ]) {
      const check = run(
        process.execPath,
        [
          TSC,
          '--noEmit',
          '--strict',
          '--target',
          'ES2022',
          '--module',
          module!,
          '--moduleResolution',
          resolution!,
          '--types',
          'node',
          '--skipLibCheck',
          file,
        ],
        app,
      );
      expect(check.stdout + check.stderr, resolution).toBe('');
    }
  });
});

/**
 * One agent turn per framework: a call that reads notes.txt and one that fails (missing.txt); each prints what the
 * model was sent back.
 */
const AGENT_SCRIPTS: Record<string, string[]> = {
  ai: [
    "import { generateText, stepCountIs } from 'ai';",
    "import { MockLanguageModelV3 } from 'ai/test';",
    "import { createToolHost } from 'toolshed';",
    "import { aiSdkTools } from 'toolshed/ai-sdk';",
    'const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };',
    "const call = (toolCallId, path) => ({ type: 'tool-call', toolCallId, toolName: 'read_file', input: JSON.stringify({ path }) });",
    'let step = 0;',
    'const model = new MockLanguageModelV3({ doGenerate: async () => (step++ === 0',
    "  ? { content: [call('c1', 'notes.txt'), call('c2', 'missing.txt')], finishReason: { unified: 'tool-calls' }, usage, warnings: [] }",
    "  : { content: [{ type: 'text', text: 'read it' }], finishReason: { unified: 'stop' }, usage, warnings: [] }) });",
    'const host = await createToolHost();',
    "const result = await generateText({ model, tools: await aiSdkTools(host), stopWhen: stepCountIs(3), prompt: 'read notes.txt' });",
    "const sent = model.doGenerateCalls[1].prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content.map((p) => [p.toolCallId, p.output.type, p.output.value]));",
    'console.log(JSON.stringify({ text: result.text, sent }));',
    'await host.close();',
  ],
  '@openai/agents': [
    "import { Agent, OpenAIProvider, run, setTracingDisabled } from '@openai/agents';",
    "import { createToolHost } from 'toolshed';",
    "import { openAiAgentsTools } from 'toolshed/openai-agents';",
    'setTracingDisabled(true);',
    "const provider = new OpenAIProvider({ baseURL: process.env.SCRIPTED_BASE_URL, apiKey: 'test', useResponses: false });",
    'const host = await createToolHost();',
    "const agent = new Agent({ name: 'notes', instructions: 'Use the tools.', model: await provider.getModel('scripted'), tools: await openAiAgentsTools(host) });",
    "const result = await run(agent, 'read notes.txt');",
    'console.log(JSON.stringify({ text: result.finalOutput }));',
    'await host.close();',
  ],
  langchain: [
    "import { createAgent, FakeToolCallingModel, ToolMessage } from 'langchain';",
    "import { createToolHost } from 'toolshed';",
    "import { langchainTools } from 'toolshed/langchain';",
    "const calls = [{ name: 'read_file', args: { path: 'notes.txt' }, id: 'c1' }, { name: 'read_file', args: { path: 'missing.txt' }, id: 'c2' }];",
    'const model = new FakeToolCallingModel({ toolCalls: [calls, []] });',
    'const host = await createToolHost();',
    'const agent = createAgent({ model, tools: await langchainTools(host) });',
    "const result = await agent.invoke({ messages: [{ role: 'user', content: 'read notes.txt' }] });",
    'const sent = result.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, m.status, m.content]);',
    'console.log(JSON.stringify({ sent }));',
    'await host.close();',
  ],
};

/** The type check of every adapter whose framework `frameworks` holds, against the app's framework types. */
const TYPED_USES: Record<string, string[]> = {
  ai: [
    "import { generateText, type LanguageModel, type ToolSet } from 'ai';",
    "import { aiSdkTools, liveAiSdkTools, ToolshedToolError } from 'toolshed/ai-sdk';",
    'declare const model: LanguageModel;',
    'const tools: ToolSet = await aiSdkTools(host, { sessionId: "s" });',
    'const live = await liveAiSdkTools(host);',
    "await generateText({ model, tools: live.tools, prepareStep: live.prepareStep, prompt: 'x' });",
    "console.log(Object.keys(tools), new ToolshedToolError('t', { ok: false, code: 'TOOL_FAILED', message: 'm' }).code);",
  ],
  '@openai/agents': [
    "import { Agent } from '@openai/agents';",
    "import { liveOpenAiAgentsTools, openAiAgentsTools } from 'toolshed/openai-agents';",
    "const agent = new Agent({ name: 'a', instructions: 'x', tools: await openAiAgentsTools(host, { strict: true }) });",
    "const liveAgent = new Agent({ name: 'b', instructions: 'x', tools: (await liveOpenAiAgentsTools(host)).tools });",
    'console.log(agent.tools.length, liveAgent.name);',
  ],
  langchain: [
    "import { createAgent, FakeToolCallingModel } from 'langchain';",
    "import { langchainTools, liveLangchainTools } from 'toolshed/langchain';",
    'const lcModel = new FakeToolCallingModel({});',
    'const lcAgent = createAgent({ model: lcModel, tools: await langchainTools(host) });',
    'const lcLive = createAgent({ model: lcModel, middleware: [await (await liveLangchainTools(host)).middleware()] });',
    'console.log(typeof lcAgent.invoke, typeof lcLive.invoke);',
  ],
};

/** The adapters of `frameworks`, installed strictly in the app `setup` gives, each running one agent turn. */
function frameworkSuite(
  label: string,
  setup: (apps: Awaited<ReturnType<typeof packedApps>>) => string,
  frameworks: Framework[],
) {
  let dir: string;
  const appDir = () => dir;
  const has = (name: string) => frameworks.some((f) => f.name === name);
  let printed: string | undefined;
  /** The envelope the model must read for the failed call: what `toolshed call` prints in the same app. */
  const envelope = () => {
    if (printed === undefined) {
      const result = run(bin, ['call', 'read_file', '{"path":"missing.txt"}'], appDir());
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stdout)).toMatchObject({ code: 'TOOL_FAILED' });
      printed = result.stdout.trim();
    }
    return printed;
  };
  const agentTurn = async (framework: string, env: Record<string, string> = {}) => {
    const file = path.join(appDir(), `agent-${framework.replace(/\W/g, '-')}.mjs`);
    writeFileSync(file, AGENT_SCRIPTS[framework]!.join('\n'));
    const result = await runAsync(process.execPath, [file], appDir(), env);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };

  describe(`the frameworks' ${label} in a fresh app (docs/embedding.md)`, () => {
    beforeAll(async () => {
      dir = setup(await packedApps());
    }, 600_000);

    it(`npm installed ${frameworks.map((f) => `${f.name} ${lockedVersion(f)}`).join(', ')} beside toolshed, and finds every peer range met`, () => {
      for (const framework of frameworks) {
        const pkg = JSON.parse(
          readFileSync(path.join(path.dirname(appDir()), 'node_modules', framework.name, 'package.json'), 'utf8'),
        );
        expect(pkg.version, framework.name).toBe(lockedVersion(framework));
      }
      // `npm ls` exits non-zero on a peer dependency outside its range (an "invalid" edge).
      const ls = spawnSync('npm', ['ls', '--all', '--offline'], {
        cwd: path.dirname(appDir()),
        encoding: 'utf8',
        env: NPM_ENV,
      });
      expect(ls.status, ls.stdout + ls.stderr).toBe(0);
      expect(ls.stdout).not.toMatch(/invalid|UNMET (?!OPTIONAL)/);
    });

    // One agent turn for each framework this app holds (LangChain is in one app only).
    if (has('ai'))
      it('toolshed/ai-sdk runs a generateText turn: the result, and the failure as the envelope', async () => {
        const out = await agentTurn('ai');
        expect(out.text).toBe('read it');
        expect(out.sent).toHaveLength(2);
        expect(out.sent[0]).toEqual(['c1', 'text', expect.stringMatching(/1\|first line of the notes/)]);
        expect(out.sent[1]).toEqual(['c2', 'error-text', envelope()]);
      });

    if (has('@openai/agents'))
      it('toolshed/openai-agents runs an Agent turn against a scripted OpenAI-compatible server: the result, and the failure as the envelope', async () => {
        const server = await startScriptedServer([
          {
            tool_calls: [
              toolCall('c1', 'read_file', { path: 'notes.txt' }),
              toolCall('c2', 'read_file', { path: 'missing.txt' }),
            ],
          },
          { content: 'read it' },
        ]);
        try {
          const out = await agentTurn('@openai/agents', {
            SCRIPTED_BASE_URL: server.baseURL,
            OPENAI_AGENTS_DISABLE_TRACING: '1',
          });
          expect(out.text).toBe('read it');
          const replies = server.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => [
            m.tool_call_id,
            m.content,
          ]);
          expect(replies).toEqual([
            ['c1', expect.stringMatching(/1\|first line of the notes/)],
            ['c2', envelope()],
          ]);
        } finally {
          await server.close();
        }
      });

    if (has('langchain'))
      it('toolshed/langchain runs a createAgent turn: the result, and the failure as an error ToolMessage holding the envelope', async () => {
        const out = await agentTurn('langchain');
        expect(out.sent).toEqual([
          ['c1', 'success', expect.stringMatching(/1\|first line of the notes/)],
          ['c2', 'error', envelope()],
        ]);
      });

    it("types each adapter against the app's framework", () => {
      const file = path.join(appDir(), 'typed-agent.ts');
      const uses = frameworks.flatMap((f) => TYPED_USES[f.name] ?? []);
      const imports = uses.filter((line) => line.startsWith('import '));
      const body = uses.filter((line) => !line.startsWith('import '));
      writeFileSync(
        file,
        [
          ...imports,
          "import { createToolHost } from 'toolshed';",
          'const host = await createToolHost();',
          ...body,
        ].join('\n'),
      );
      // The exports map is what resolution reads; the host API test above covers the other resolutions.
      const check = run(
        process.execPath,
        [
          TSC,
          '--noEmit',
          '--strict',
          '--target',
          'ES2022',
          '--module',
          'NodeNext',
          '--moduleResolution',
          'NodeNext',
          '--types',
          'node',
          '--skipLibCheck',
          file,
        ],
        appDir(),
      );
      expect(check.stdout + check.stderr).toBe('');
    });
  });
}

frameworkSuite('previous majors', ({ app, bin }) => ownFolder(app, bin), PREVIOUS);
frameworkSuite('current majors', ({ appCurrent, bin }) => ownFolder(appCurrent, bin), CURRENT);

/**
 * A folder of `app`'s own for the agent turns: notes.txt and the config the README's tour
 * starts with (the file tools), trusted as an operator would. Node finds the app's
 * node_modules from it.
 */
function ownFolder(app: string, bin: string): string {
  const dir = path.join(app, 'agents');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'notes.txt'), 'first line of the notes\nsecond line\n');
  writeFileSync(path.join(dir, 'toolshed.config.mjs'), "export default { root: '.', enable: ['file'] };\n");
  expect(run(bin, ['trust'], dir)).toMatchObject({ code: 0 });
  return dir;
}
