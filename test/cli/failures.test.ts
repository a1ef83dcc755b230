/**
 * The CLI when a plugin fails to load: what list, the summary and --strict print and decide, run by
 * main() in this process (test/helpers.ts's toolshedMain), and serve's startup lines, which it
 * writes to the process's own stderr, from a real process.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, tempDir, suiteHome, toolshedMain } from '../helpers.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
let work: { dir: string; cleanup(): void };

// One project for every test: none of them changes it.
beforeAll(async () => {
  work = tempDir('toolshed-cli-failures-');
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"cli-failures","private":true}');
  const plugins = [
    { package: fixture('plugins', 'where'), trust: 'trusted' },
    { package: fixture('plugins', 'missingdep'), trust: 'trusted' },
  ];
  writeFileSync(
    path.join(work.dir, '.toolshedrc.json'),
    JSON.stringify({ builtins: false, cache: { enabled: false }, plugins, enable: ['where', 'missingdep'] }),
  );
  // The operator's own config, accepted, so stderr holds only what these tests look at (no first-use note).
  expect((await run(['trust'])).code).toBe(0);
});
afterAll(() => work.cleanup());

const env = () => ({ ...suiteHome(), PATH: process.env.PATH ?? '', LANG: 'C.UTF-8' });

/** `toolshed ARGS` as a real process in the project. */
function toolshed(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: work.dir,
    encoding: 'utf8',
    input,
    env: env(),
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `toolshed ARGS` in the project, run by main() in this process. */
const run = (args: string[]) => toolshedMain(args, { cwd: work.dir, env: env() });

describe('the CLI with a plugin that failed to load', () => {
  it('list still exits 0 with the others, and warns on stderr naming the plugin and its code', async () => {
    const result = await run(['list', '--format', 'names']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('where\n');
    expect(result.stderr).toMatch(
      /^toolshed: warning: 1 plugin failed to load .*\n {2}✗ toolshed-plugin-missingdep \(PLUGIN_IMPORT_FAILED: .*Cannot find package 'toolshed-fixture-not-installed'/,
    );
  });

  it('--strict exits 1 for every command that loads plugins', async () => {
    for (const args of [[], ['list'], ['explain', 'where'], ['call', 'where'], ['tour']]) {
      const result = await run([...args, '--strict']);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toMatch(
        /^toolshed: --strict: 1 plugin failed to load:\n {2}✗ toolshed-plugin-missingdep \(PLUGIN_IMPORT_FAILED/,
      );
      expect(result.stdout).toBe('');
    }
  });

  it('the summary shows the failure and what stays known', async () => {
    const { code, stdout } = await run([]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/✗ toolshed-plugin-missingdep\s+PLUGIN_IMPORT_FAILED: /);
    expect(stdout).toContain(
      "toolset 'missingdep' kept as a name; its tools are not known (no earlier manifest of it is cached)",
    );
    expect(stdout).toContain('missingdep (0, unavailable)');
  });

  it('serve prints the config, the root and the failed plugin on stderr, and --strict refuses to serve', () => {
    const strict = toolshed(['serve', '--strict'], '');
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(`toolshed serve: config: ${path.join(work.dir, '.toolshedrc.json')}`);
    expect(strict.stderr).toContain(`toolshed serve: root: ${work.dir}`);
    expect(strict.stderr).toMatch(/toolshed serve: plugin failed: toolshed-plugin-missingdep \(PLUGIN_IMPORT_FAILED: /);
    expect(strict.stderr).toContain('--strict: 1 plugin failed to load; not serving');
  });

  it('serve says when no config was found', () => {
    const empty = tempDir('toolshed-noconfig-');
    try {
      writeFileSync(path.join(empty.dir, 'package.json'), '{"name":"empty","private":true}');
      const result = spawnSync(process.execPath, [BIN, 'serve', '--enable', 'file'], {
        cwd: empty.dir,
        encoding: 'utf8',
        input: '',
        env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
        timeout: 60_000,
      });
      expect(result.stderr).toContain('toolshed serve: no config found: embedded default');
      expect(result.status).toBe(0);
    } finally {
      empty.cleanup();
    }
  });
});
