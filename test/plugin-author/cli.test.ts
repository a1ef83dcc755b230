/**
 * Issue 23 §5 at the command line: `toolshed call` shows the plugin's ctx.log lines on stderr
 * (the result alone on stdout), and a grant that matches nothing its plugin requests is a
 * warning in the summary and an error under --strict. A real config file and the untrusted fixture
 * plugin in its child process; the call through the real bin (its stdout and stderr), the rest run
 * by the CLI's main() in this process (test/helpers.ts's toolshedMain).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, tempDir, suiteHome, toolshedMain } from '../helpers.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
let work: ReturnType<typeof tempDir>;

function config(grant: Record<string, unknown>): void {
  writeFileSync(
    path.join(work.dir, 'toolshed.config.mjs'),
    `export default ${JSON.stringify({ builtins: false, plugins: [{ package: fixture('plugin-author', 'notebook'), grant }] })};\n`,
  );
}

/** `toolshed ARGS` as a real process in the project. */
function toolshed(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: work.dir,
    encoding: 'utf8',
    env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `toolshed ARGS` in the project, run by main() in this process. */
const run = (args: string[]) => toolshedMain(args, { cwd: work.dir });

beforeEach(() => {
  work = tempDir();
  mkdirSync(path.join(work.dir, 'notes'));
});
afterEach(() => work.cleanup());

describe('toolshed call', () => {
  it("prints the plugin's ctx.log lines on stderr and the result alone on stdout", () => {
    config({ fsWrite: ['notes'] });
    const out = toolshed(['call', 'notes_save', '{"topic":"a","text":"b"}']);
    expect(out).toMatchObject({ code: 0, stdout: 'saved a\n' });
    expect(out.stderr).toContain('[toolshed-plugin-notebook/notes_save] saved a');
  });
});

describe('a grant that matches nothing the plugin requests', () => {
  it('is a warning in the summary and on stderr of list, and the plugin still works', async () => {
    config({ fsWrite: ['notes', './other'] });
    const summary = await run([]);
    expect(summary.code).toBe(0);
    expect(summary.stdout).toContain(
      "plugin toolshed-plugin-notebook: grant.fsWrite './other' matches no folder the plugin requests",
    );
    const list = await run(['list', '--format', 'names']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('notes_save');
    expect(list.stderr).toContain('toolshed: warning: 1 grant matches nothing the plugin requests');
  });

  it('explain TOOL shows it under the plugin permissions', async () => {
    config({ fsWrite: ['notes', './other'] });
    const out = await run(['explain', 'notes_save']);
    expect(out.stdout).toMatch(
      /effective: network no; env none; read none; write notes; call none\n.*grant\.fsWrite '\.\/other' matches no folder/,
    );
  });

  it('is an error under --strict', async () => {
    config({ fsWrite: ['notes', './other'] });
    const out = await run(['list', '--strict']);
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(
      "toolshed: --strict: 1 grant matches nothing the plugin requests:\n  ! toolshed-plugin-notebook: grant.fsWrite './other'",
    );
  });

  it('--strict passes when every grant matches a request', async () => {
    config({ fsWrite: ['./notes'] });
    expect(await run(['list', '--strict', '--format', 'names'])).toMatchObject({
      code: 0,
      stdout: 'notes_list\nnotes_read\nnotes_read_wrapped\nnotes_save\n',
    });
  });
});
