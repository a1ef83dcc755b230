/**
 * What the CLI shows on a terminal and into a pipe, as real processes: colour and the slow-start
 * note on a pseudo-terminal (from script(1)), neither into a pipe. Help, version, completion, the
 * parsing of flags and the style rules (colour, NO_COLOR, FORCE_COLOR, ASCII symbols) are tested
 * in-process in test/unit/cli-program.test.ts.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, tempDir, suiteHome } from '../helpers.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
let work: { dir: string; cleanup(): void };

beforeEach(() => {
  work = tempDir();
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"cli-help","private":true}');
  writeFileSync(
    path.join(work.dir, '.toolshedrc.json'),
    JSON.stringify({
      builtins: false,
      cache: { enabled: false },
      plugins: [{ package: fixture('plugins', 'slowload'), trust: 'trusted' }],
    }),
  );
});
afterEach(() => work.cleanup());

/** Runs `command` in the project and resolves with its exit code and output once it has exited. */
function exited(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, {
    cwd: work.dir,
    env: { ...suiteHome(), PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('terminal output', () => {
  // The plugin takes 1.5 s to import: both starts are slow enough for the note. They run side by side.
  it('colours on a TTY and notes a slow start on stderr, once; writes no progress note into a pipe', async () => {
    // script(1) gives the CLI a pseudo-terminal for stdout and stderr.
    const onTerminal = exited('script', ['-qec', `${process.execPath} ${BIN}`, '/dev/null'], {
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
    });
    const intoPipe = (async () => {
      expect((await exited(process.execPath, [BIN, 'trust'])).code).toBe(0);
      return exited(process.execPath, [BIN, 'list', '--format', 'names']);
    })();
    const [tty, pipe] = await Promise.all([onTerminal, intoPipe]);
    expect(tty.code, tty.stdout).toBe(0);
    expect(tty.stdout).toMatch(/\u001b\[32m✓\u001b\[39m toolshed-plugin-slowload/);
    expect(tty.stdout.match(/toolshed: loading plugins…/g)).toHaveLength(1);
    expect(pipe).toEqual({ code: 0, stdout: 'slowload\n', stderr: '' });
  });
});
