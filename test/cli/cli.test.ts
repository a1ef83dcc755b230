/**
 * The `toolshed` commands on a real project: what each prints and decides, run by the CLI's main()
 * in this process (test/helpers.ts's toolshedMain), and what only a real process shows in a child
 * of its own: the binary's start and its pipe (no colour), a call's arguments read from a real
 * stdin while the CLI waits for a process-tier plugin, and the root package's bin through npx.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInit } from '#internal/core/cli/init.js';
import { fixture, tempDir, suiteHome, toolshedMain } from '../helpers.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
let work: { dir: string; cleanup(): void };

beforeEach(() => {
  work = tempDir();
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"cli-project","private":true}');
  writeFileSync(
    path.join(work.dir, 'toolshed.config.mjs'),
    `export default ${JSON.stringify({
      builtins: false,
      plugins: [
        { package: fixture('plugins', 'kitchen'), trust: 'trusted' },
        { package: fixture('plugins', 'seed'), trust: 'trusted' },
        'toolshed-plugin-missing',
      ],
      disable: ['loop', 'oom', 'exit'],
    })};\n`,
  );
});
afterEach(() => work.cleanup());

/** `toolshed ARGS` as a real process in the project. */
function toolshed(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: work.dir,
    encoding: 'utf8',
    input,
    env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `toolshed ARGS` in the project, run by main() in this process. */
const run = (args: string[], input?: string) =>
  toolshedMain(args, { cwd: work.dir, ...(input !== undefined ? { input } : {}) });

/** One tool's block of `toolshed explain`'s output: from its `name: exposed|hidden…` line to the next tool's. */
function toolBlock(explained: string, name: string): string {
  const start = explained.indexOf(`\n${name}: `);
  expect(start, `no block for ${name}`).toBeGreaterThan(-1);
  const next = explained.slice(start + 1).search(/\n\S+: (exposed|hidden)/);
  return next === -1 ? explained.slice(start + 1) : explained.slice(start + 1, start + 1 + next);
}

describe('toolshed CLI', () => {
  it('prints the summary: plugins, layer counts and every hidden tool with its reason', () => {
    const { code, stdout } = toolshed([]);
    expect(code).toBe(0);
    expect(stdout).toContain(`config: ${path.join(work.dir, 'toolshed.config.mjs')}`);
    expect(stdout).toMatch(/✓ toolshed-plugin-kitchen\s+14 tools · thread tier · trusted/);
    expect(stdout).toMatch(/✗ toolshed-plugin-missing\s+PLUGIN_NOT_FOUND: .*npm install toolshed-plugin-missing/);
    expect(stdout).toContain('layers: 18 registered → 15 selected → 14 available → 14 exposed');
    expect(stdout).toMatch(/web_search\s+availability\s+missing environment variable SEARCH_API_KEY/);
    expect(stdout).toMatch(/loop\s+selection\s+disabled by config/);
    expect(stdout).toContain('description of summarize mentions web_search, which is not exposed');
    // Into a pipe, without FORCE_COLOR: no colour (the style rules: test/unit/cli-program.test.ts).
    expect(stdout).not.toContain('\u001b[');
  });

  it('lists definitions in each format, names one a line, and applies --enable and --disable', async () => {
    // research holds browse, summarize, zeta and web_search: zeta is disabled, web_search hidden (no SEARCH_API_KEY).
    const names = await run(['list', '--format', 'names', '--enable', 'research', '--disable', 'zeta']);
    expect(names.code).toBe(0);
    expect(names.stdout.trim().split('\n')).toEqual(['browse', 'summarize']);
    const anthropic = JSON.parse((await run(['list', '--format', 'anthropic'])).stdout);
    expect(anthropic[0]).toHaveProperty('input_schema');
    const openai = JSON.parse((await run(['list'])).stdout);
    expect(openai[0].type).toBe('function');
  });

  it('explains one tool, and everything as JSON', async () => {
    const one = await run(['explain', 'web_search']);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('web_search: hidden at layer availability');
    expect(one.stdout).toContain('reason:   missing environment variable SEARCH_API_KEY');
    const all = JSON.parse((await run(['explain', '--json'])).stdout);
    expect(all.plugins.map((p: { name: string; status: string }) => `${p.name}:${p.status}`)).toEqual([
      'toolshed-plugin-kitchen:loaded',
      'toolshed-plugin-seed:loaded',
      'toolshed-plugin-missing:failed',
    ]);
    // The first command of this test extracted the manifests; this run read them from the cache.
    expect(all.plugins[0].manifestSource).toBe('cache');
  });

  // Arguments read from a real process's stdin: the process-tier call below.
  it('calls a tool: exit 0 with the result, exit 1 with the error envelope', async () => {
    const ok = await run(['call', 'echo', '{"a":1}']);
    expect(ok).toMatchObject({ code: 0, stdout: '{"a":1}\n' });
    const fromStdin = await run(['call', 'echo', '-'], '{"b":2}');
    expect(fromStdin.stdout).toBe('{"b":2}\n');
    const failed = await run(['call', 'throws']);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toEqual({ error: 'the kettle is empty', code: 'TOOL_FAILED' });
  });

  // The usage errors found while parsing (unknown command or flag, a bad choice, a missing argument) are
  // in test/unit/cli-program.test.ts; this one is found once the host has loaded its tools.
  it('exits 2 with one line on stderr for usage errors, and suggests the tool meant', async () => {
    expect((await run(['trust'])).code).toBe(0);
    const { code, stderr, stdout } = await run(['explain', 'ecoh']);
    expect(code).toBe(2);
    expect(stderr).toBe("toolshed: no tool named 'ecoh' is registered. Did you mean 'echo'?\n");
    expect(stdout).toBe('');
  });

  it('exits 1 with CONFIG_INVALID for a --config naming a FIFO instead of hanging', async () => {
    execFileSync('mkfifo', [path.join(work.dir, 'pipe.json')]);
    const { code, stderr } = await run(['list', '--config', 'pipe.json']);
    expect(code).toBe(1);
    expect(stderr).toContain('CONFIG_INVALID: the config pipe.json is a FIFO (named pipe)');
  });

  it('exits 1 with the code and no stack trace for a bad config', async () => {
    writeFileSync(path.join(work.dir, 'toolshed.config.mjs'), 'export default { enable: "all" };\n');
    const { code, stderr } = await run([]);
    expect(code).toBe(1);
    expect(stderr).toContain('CONFIG_INVALID');
    expect(stderr).toContain('/enable: must be array');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('says which protections are in force for an untrusted plugin', async () => {
    writeFileSync(
      path.join(work.dir, 'toolshed.config.mjs'),
      `export default ${JSON.stringify({ builtins: false, plugins: [fixture('project', 'node_modules', 'toolshed-plugin-alpha')] })};\n`,
    );
    // explain without a tool prints the summary, then every tool.
    const explained = await run(['explain']);
    expect(explained.stdout).toMatch(/✓ toolshed-plugin-alpha\s+2 tools · process tier · untrusted/);
    // "network" too where Node's permission model holds it (Node 25+, no network grant).
    const network = process.allowedNodeEnvironmentFlags.has('--allow-net') ? 'network, ' : '';
    expect(explained.stdout).toContain(`protections: permission model (fs, ${network}child processes, addons)`);
    const one = toolBlock(explained.stdout, 'alpha_echo');
    expect(one).toContain('tier:     process (untrusted)');
    expect(one).toContain('effective: network no; env none; read none; write none');
    // The call runs in the plugin's child process; the CLI (a real process, its arguments on its stdin) must wait for
    // it, not exit early.
    const call = toolshed(['call', 'alpha_echo', '-'], '{"n":1}');
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout)).toEqual({ from: 'alpha', args: { n: 1 }, helper: 'helped' });
  });

  it('says which pool a trusted plugin runs in and why', async () => {
    const app = fixture('security', 'shared-pool', 'node_modules');
    writeFileSync(
      path.join(work.dir, 'toolshed.config.mjs'),
      `export default ${JSON.stringify({
        builtins: false,
        plugins: [
          { package: path.join(app, 'toolshed-plugin-svc'), trust: 'trusted' },
          { package: path.join(app, 'toolshed-plugin-snoop'), trust: 'trusted' },
        ],
      })};\n`,
    );
    // explain without a tool prints the summary, then every tool.
    const explained = (
      await toolshedMain(['explain'], {
        cwd: work.dir,
        env: { ...suiteHome(), PATH: process.env.PATH ?? '', SVC_TOKEN: 'token' },
      })
    ).stdout;
    expect(explained).toMatch(/✓ toolshed-plugin-svc\s+2 tools · thread tier · trusted · own pool/);
    expect(toolBlock(explained, 'svc_request')).toContain(
      'tier:     thread (trusted), a pool of its own: it holds env grants (SVC_TOKEN)',
    );
    expect(toolBlock(explained, 'snoop_seen')).toContain(
      'tier:     thread (trusted), the shared pool: it holds no env grants',
    );
  });

  it('runs as npx toolshed from the repo root (the root package bin)', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const result = spawnSync('npx', ['--no-install', 'toolshed', 'list', '--format', 'names', '--enable', 'file'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual(['patch', 'read_file', 'search_files', 'write_file']);
  });

  // The command writes the file; overwriting is refused, or done with --force (its flag:
  // test/unit/cli-program.test.ts).
  it('init writes a starter config with $schema and refuses to overwrite it', async () => {
    const dir = tempDir();
    try {
      const init = await toolshedMain(['init'], { cwd: dir.dir });
      expect(init.code, init.stderr).toBe(0);
      const file = path.join(dir.dir, '.toolshedrc.json');
      expect(existsSync(file)).toBe(true);
      const config = JSON.parse(readFileSync(file, 'utf8'));
      expect(config.$schema).toBe('./node_modules/toolshed/config.schema.json');
      const out: string[] = [];
      const again = (force: boolean) => runInit({ cwd: dir.dir, force, out: (text) => void out.push(text) });
      expect(await again(false)).toBe(1);
      expect(await again(true)).toBe(0);
      expect(out[0]).toBe(
        'wrote .toolshedrc.json. Add plugin packages with npm install, list them under "plugins", and run toolshed to see what is exposed.',
      );
    } finally {
      dir.cleanup();
    }
  });
});
