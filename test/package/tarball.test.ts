/**
 * The published package as a user meets it: the tarball packed once per run and installed
 * into a fresh app (app.ts, pack-setup.ts), and the CLI, the MCP server and a TypeScript
 * plugin run there. The agent frameworks' adapters in the installed package:
 * tarball-frameworks.test.ts.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers.js';
import { ENV, packedApps, REPO, repoPkg, run, TSC } from './app.js';

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
    expect(files.filter((f) => /(^|\/)(test|tests|__tests__)(\/|$)|\.test\.[cm]?[jt]s$|vitest\.config|^scripts\//.test(f))).toEqual([]);
    expect(files.filter((f) => /^(core|sandbox|bench|examples)\//.test(f))).toEqual([]);
  });

  it('has a LICENSE, the docs the README links to, main, types, repository and keywords', () => {
    const pkg = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    expect(readFileSync(path.join(installed, 'LICENSE'), 'utf8')).toContain('MIT License');
    const links = [...readFileSync(path.join(installed, 'README.md'), 'utf8').matchAll(/\]\(((?!https?:)[^)#]+)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(3);
    for (const link of links) expect(existsSync(path.join(installed, link)), link).toBe(true);
    expect(existsSync(path.join(installed, pkg.main))).toBe(true);
    expect(existsSync(path.join(installed, pkg.types))).toBe(true);
    expect(pkg.repository.url).toMatch(/^git\+https:\/\//);
    expect(pkg.keywords).toEqual(expect.arrayContaining(['mcp', 'llm']));
  });

  it('ships every source map with its sources', () => {
    const maps = (readdirSync(path.join(installed, 'dist'), { recursive: true }) as string[]).filter((f) => f.endsWith('.map'));
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
    expect(result.stdout.trim().split('\n')).toEqual(expect.arrayContaining(['read_file', 'search_files', 'terminal', 'todo_write', 'web_fetch', 'execute_code']));
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
    const code = run(bin, ['call', 'execute_code', JSON.stringify({ code: 'return (await tools.todo_write({ todos: [{ id: "1", content: "ship", status: "pending" }] })).counts' })], app);
    expect(code.code, code.stdout + code.stderr).toBe(0);
    expect(JSON.parse(code.stdout)).toMatchObject({ result: expect.objectContaining({ pending: 1 }) });
  });

  it('a third-party plugin imports toolshed/toolkit by name, typed by its own .d.ts', () => {
    const dir = path.join(app, 'toolkit-plugin');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'toolkit-plugin', version: '1.0.0', type: 'module', main: 'index.js', toolshed: { apiVersion: 1 } }));
    writeFileSync(
      path.join(dir, 'index.ts'),
      [
        "import { defineTool } from 'toolshed/plugin';",
        "import { probeSandbox, protectedBy, shellSandboxPlan, type ShellSandboxPlan } from 'toolshed/toolkit';",
        "const guarded = defineTool({ name: 'guarded', description: 'Whether a path is protected.', parameters: { type: 'object' }, codeCallable: true,",
        '  handler: (_args, ctx) => {',
        "    const plan: ShellSandboxPlan = shellSandboxPlan({ sandbox: 'off' }, probeSandbox());",
        "    return { sandboxed: plan.sandboxed, protectedBy: protectedBy(`${ctx.cwd}/.git/hooks/x`, [{ kind: 'name', value: '.git/hooks', why: 'git runs it' }])?.value ?? null };",
        '  } });',
        'export default { apiVersion: 1, tools: [guarded] };',
      ].join('\n'),
    );
    const check = run(process.execPath, [TSC, '--strict', '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--types', 'node', '--skipLibCheck', path.join(dir, 'index.ts')], dir);
    expect(check.stdout + check.stderr).toBe('');
    writeFileSync(path.join(dir, 'toolshed.config.mjs'), "export default { builtins: false, plugins: [{ package: '.', trust: 'trusted' }] };\n");
    expect(run(bin, ['trust'], dir)).toMatchObject({ code: 0 });
    const called = run(bin, ['call', 'guarded', '{}'], dir);
    expect(called.code, called.stdout + called.stderr).toBe(0);
    expect(JSON.parse(called.stdout)).toEqual({ sandboxed: false, protectedBy: '.git/hooks' });
  });

  it("the model's file tools cannot change toolshed's install in the app, nor add a builtin plugin", () => {
    for (const file of ['node_modules/toolshed/plugins/evil/index.js', 'node_modules/toolshed/dist/core/index.js', 'node_modules/piscina/package.json', 'toolshed.config.mjs']) {
      const result = run(bin, ['call', 'write_file', JSON.stringify({ path: file, content: 'export default {};\n' })], app);
      expect(result.code, file).toBe(1);
      expect(JSON.parse(result.stdout), file).toMatchObject({ code: 'PERMISSION_DENIED' });
    }
    expect(existsSync(path.join(installed, 'plugins', 'evil'))).toBe(false);
    const summary = run(bin, [], app);
    expect(summary.stdout).toContain(`${realpathSync(path.join(app, 'node_modules'))} — it holds toolshed and the packages the host and its workers run`);
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
    writeFileSync(config, JSON.stringify({ access: [{ name: 'eng', when: { claims: { groups: 'eng' } }, enable: ['file'] }], audit: { to: log }, mcpServers: { remote: { url: 'http://127.0.0.1:9/mcp' } } }));
    const flags = ['--config', config, '--trust-config'];
    const explained = run(bin, ['explain', '--as', '{"sub":"alice","groups":["eng"]}', '--json', ...flags], dir);
    expect(explained.code, explained.stderr).toBe(0);
    expect(JSON.parse(explained.stdout).access).toMatchObject({ subject: 'alice', rule: 'eng' });
    const refused = run(bin, ['explain', '--as', 'mallory', ...flags], dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('ACCESS_DENIED');
    expect(run(bin, ['auth', 'remote', '--status', ...flags], dir)).toMatchObject({ code: 0, stdout: expect.stringContaining('remote: not authorized (run toolshed auth remote)') });
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
    expect(run(bin, ['trust'], app)).toMatchObject({ code: 0, stdout: expect.stringContaining('a config appeared where there was none: ./toolshed.config.mjs') });
    // docs/embedding.md: {"command":"npx","args":["-y","--prefix","/path/to/app","toolshed","serve","--config","/path/to/app/toolshed.config.mjs"]}
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
    const child = spawn(bin, ['ui', '--http', '127.0.0.1:0', '--config', config, '--trust-config'], { cwd: dir, env: ENV });
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
      const overview = (await (await fetch(`${url}api/overview`)).json()) as { version: string; tools: Array<{ name: string }> };
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
      const check = run(process.execPath, [TSC, '-p', plugin, '--noEmit', '--module', module!, '--moduleResolution', resolution!], plugin);
      expect(check.stdout + check.stderr, resolution).toBe('');
    }
  });

  it('runs its unit tests with createTestContext', () => {
    const compiled = run(process.execPath, [TSC, '-p', path.join(plugin, 'tsconfig.test.json')], plugin);
    expect(compiled.stdout + compiled.stderr).toBe('');
    // The files, as the package's `test` script names them (dist-test/*.test.js): given a folder, Node 22+ runs its index.js instead.
    const files = readdirSync(path.join(plugin, 'dist-test')).filter((f) => f.endsWith('.test.js'));
    expect(files.length).toBeGreaterThan(0);
    // TAP, named: Node 23+ prints its spec reporter by default even when not on a terminal.
    const tests = run(process.execPath, ['--test', '--test-reporter=tap', ...files.map((f) => path.join(plugin, 'dist-test', f))], plugin);
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
    expect(run(bin, ['call', 'greet', '{"name":"Ada","shout":true}'], plugin)).toMatchObject({ code: 0, stdout: 'HELLO, ADA!\n' });
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
      const check = run(process.execPath, [TSC, '--noEmit', '--strict', '--target', 'ES2022', '--module', module!, '--moduleResolution', resolution!, '--types', 'node', '--skipLibCheck', file], app);
      expect(check.stdout + check.stderr, resolution).toBe('');
    }
  });
});
