/**
 * The published package as a user meets it: `npm pack` the repository, install the
 * tarball into a fresh app with `npm install --offline` (every package comes from the
 * npm cache that `npm ci` filled; no network), and run the CLI, the MCP server and a
 * TypeScript plugin there. The app's lockfile is the repository's lockfile cut down to
 * toolshed's own dependencies, so npm needs no registry metadata to install it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, tempDir, suiteHome } from '../helpers.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const TSC = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const repoPkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
const repoLock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8'));
// Offline, quiet, and never asking the registry whether npm itself is current.
const NPM_ENV = { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', FORCE_COLOR: '0' };
const ENV = { ...suiteHome(), PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LANG: 'C.UTF-8' };

let work: { dir: string; cleanup(): void };
let app: string;
let installed: string;
let bin: string;

/** The app's lockfile: toolshed from the tarball, and the repository's locked entries for toolshed's dependencies (plus @types/node for the plugin's tests). */
function appLock(tarball: string, devDependencies: Record<string, string>) {
  const packages: Record<string, unknown> = {
    '': { name: 'fresh-app', dependencies: { toolshed: `file:${tarball}` }, devDependencies },
    'node_modules/toolshed': { version: repoPkg.version, resolved: `file:${tarball}`, license: repoPkg.license, dependencies: repoPkg.dependencies, bin: repoPkg.bin, engines: repoPkg.engines },
  };
  const wanted = lockClosure(Object.keys(devDependencies));
  for (const [key, entry] of Object.entries(repoLock.packages as Record<string, { dev?: boolean; devOptional?: boolean; link?: boolean }>)) {
    if (!key.startsWith('node_modules/') || entry.link) continue;
    if (!entry.dev && !entry.devOptional) packages[key] = entry;
    else if (wanted.has(key)) packages[key] = entry;
  }
  return { name: 'fresh-app', lockfileVersion: 3, requires: true, packages };
}

/** Lock keys of `names` and everything they depend on, resolved the way node looks up node_modules (a nested copy first). */
function lockClosure(names: string[]): Set<string> {
  const packages = repoLock.packages as Record<string, { dependencies?: Record<string, string> }>;
  const found = new Set<string>();
  const locate = (from: string, name: string): string | undefined => {
    for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
      const key = `${dir ? `${dir}/` : ''}node_modules/${name}`;
      if (packages[key]) return key;
      if (!dir) return undefined;
    }
  };
  const queue = names.map((name) => locate('', name)).filter((key): key is string => key !== undefined);
  for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
    if (found.has(key)) continue;
    found.add(key);
    for (const dep of Object.keys(packages[key]?.dependencies ?? {})) {
      const at = locate(key, dep);
      if (at) queue.push(at);
    }
  }
  return found;
}

function run(command: string, args: string[], cwd: string, input?: string) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: ENV, input, timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  work = tempDir('toolshed-tarball-');
  // The suite runs against the build `npm test` just made; --ignore-scripts so packing does not rebuild dist under the other tests.
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work.dir], { cwd: REPO, encoding: 'utf8', env: NPM_ENV }));
  const tarball = path.join(work.dir, packed[0].filename);
  app = path.join(work.dir, 'app');
  mkdirSync(app);
  // The AI SDK stands for the framework adapters: an app installs the framework next to toolshed.
  const devDependencies = { '@types/node': repoPkg.devDependencies['@types/node'], ai: repoPkg.devDependencies.ai, zod: repoPkg.devDependencies.zod };
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'fresh-app', private: true, type: 'module', dependencies: { toolshed: `file:${tarball}` }, devDependencies }, null, 2));
  writeFileSync(path.join(app, 'package-lock.json'), JSON.stringify(appLock(tarball, devDependencies), null, 2));
  writeFileSync(path.join(app, 'notes.txt'), 'first line of the notes\nsecond line\n');
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund'], { cwd: app, env: NPM_ENV, stdio: 'pipe' });
  installed = path.join(app, 'node_modules', 'toolshed');
  bin = path.join(app, 'node_modules', '.bin', 'toolshed');
}, 300_000);

afterAll(() => work?.cleanup());

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
    for (const [module, resolution] of [['Node16', 'Node16'], ['ESNext', 'Bundler']]) {
      const check = run(process.execPath, [TSC, '-p', plugin, '--noEmit', '--module', module!, '--moduleResolution', resolution!], plugin);
      expect(check.stdout + check.stderr, resolution).toBe('');
    }
  });

  it("runs its unit tests with createTestContext", () => {
    const compiled = run(process.execPath, [TSC, '-p', path.join(plugin, 'tsconfig.test.json')], plugin);
    expect(compiled.stdout + compiled.stderr).toBe('');
    const tests = run(process.execPath, ['--test', path.join(plugin, 'dist-test')], plugin);
    expect(tests.code, tests.stdout + tests.stderr).toBe(0);
    expect(tests.stdout).toMatch(/# pass 2/);
  });

  it('loads itself through its dev config (plugins: [\'.\'])', () => {
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
    for (const [module, resolution] of [['NodeNext', 'NodeNext'], ['Node16', 'Node16'], ['ESNext', 'Bundler']]) {
      const check = run(process.execPath, [TSC, '--noEmit', '--strict', '--target', 'ES2022', '--module', module!, '--moduleResolution', resolution!, '--types', 'node', '--skipLibCheck', file], app);
      expect(check.stdout + check.stderr, resolution).toBe('');
    }
  });
});

describe('a framework adapter in a fresh app (docs/embedding.md)', () => {
  it('toolshed/ai-sdk runs a generateText turn with the AI SDK the app installed', () => {
    const file = path.join(app, 'agent.mjs');
    writeFileSync(
      file,
      [
        "import { generateText, stepCountIs } from 'ai';",
        "import { MockLanguageModelV3 } from 'ai/test';",
        "import { createToolHost } from 'toolshed';",
        "import { aiSdkTools } from 'toolshed/ai-sdk';",
        "const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };",
        'let step = 0;',
        'const model = new MockLanguageModelV3({ doGenerate: async () => (step++ === 0',
        "  ? { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: JSON.stringify({ path: 'notes.txt' }) }], finishReason: { unified: 'tool-calls' }, usage, warnings: [] }",
        "  : { content: [{ type: 'text', text: 'read it' }], finishReason: { unified: 'stop' }, usage, warnings: [] }) });",
        'const host = await createToolHost();',
        "const result = await generateText({ model, tools: await aiSdkTools(host), stopWhen: stepCountIs(3), prompt: 'read notes.txt' });",
        'console.log(JSON.stringify({ text: result.text, output: result.steps[0].toolResults[0].output }));',
        'await host.close();',
      ].join('\n'),
    );
    const result = run(process.execPath, [file], app);
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.text).toBe('read it');
    expect(out.output).toMatch(/1\|first line of the notes/);
  });

  it('types toolshed/ai-sdk against the app\'s AI SDK', () => {
    const file = path.join(app, 'typed-agent.ts');
    writeFileSync(
      file,
      [
        "import { generateText, type LanguageModel, type ToolSet } from 'ai';",
        "import { createToolHost } from 'toolshed';",
        "import { aiSdkTools, liveAiSdkTools, ToolshedToolError } from 'toolshed/ai-sdk';",
        'declare const model: LanguageModel;',
        'const host = await createToolHost();',
        'const tools: ToolSet = await aiSdkTools(host, { sessionId: "s" });',
        'const live = await liveAiSdkTools(host);',
        "await generateText({ model, tools: live.tools, prepareStep: live.prepareStep, prompt: 'x' });",
        "console.log(Object.keys(tools), new ToolshedToolError('t', { ok: false, code: 'TOOL_FAILED', message: 'm' }).code);",
      ].join('\n'),
    );
    // The exports map is what resolution reads; the host API test above covers the other resolutions.
    const check = run(process.execPath, [TSC, '--noEmit', '--strict', '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--types', 'node', '--skipLibCheck', file], app);
    expect(check.stdout + check.stderr).toBe('');
  });
});
