import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, tempDir, suiteHome } from '../helpers.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
const pkg = JSON.parse((await import('node:fs')).readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
let work: { dir: string; cleanup(): void };

beforeEach(() => {
  work = tempDir();
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"cli-help","private":true}');
  writeFileSync(
    path.join(work.dir, '.toolshedrc.json'),
    JSON.stringify({ builtins: false, cache: { enabled: false }, plugins: [{ package: fixture('plugins', 'kitchen'), trust: 'trusted' }], disable: ['loop', 'oom', 'exit'] }),
  );
});
afterEach(() => work.cleanup());

function toolshed(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: work.dir, encoding: 'utf8', env: { ...suiteHome(), PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('CLI help and version', () => {
  it('prints the version with --version and -v', () => {
    for (const flag of ['--version', '-v']) expect(toolshed([flag])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it("help CMD and CMD --help show that command's own flags and an example", () => {
    const viaHelp = toolshed(['help', 'list']);
    const viaFlag = toolshed(['list', '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toContain('Usage: toolshed list [options]');
    const flat = viaHelp.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain('--format <format> provider format, or names (one a line) (choices: "openai", "responses", "anthropic", "gemini", "mcp", "names")');
    expect(viaHelp.stdout).toContain('--strict');
    expect(viaHelp.stdout).toMatch(/Examples:\n {2}\$ toolshed list --format anthropic/);
    const serve = toolshed(['serve', '--help']).stdout;
    expect(serve).toContain('--http <host:port>');
    expect(serve).toContain('--watch');
    expect(serve).toContain('--public-url <urls>');
    expect(serve).toContain('--replica <name>');
    expect(serve).not.toContain('--format');
    const call = toolshed(['help', 'call']).stdout;
    expect(call).toContain('Usage: toolshed call [options] <tool> [args]');
    expect(call).toContain(`$ toolshed call read_file '{"path":"README.md","limit":5}'`);
  });

  it('lists every command in --help', () => {
    const { stdout } = toolshed(['--help']);
    for (const name of ['summary', 'list', 'explain', 'call', 'serve', 'init', 'trust', 'accept', 'tour', 'completion', 'help']) expect(stdout).toMatch(new RegExp(`\\n {2}${name} `));
  });

  it('suggests the command, flag or tool meant', () => {
    expect(toolshed(['lsit'])).toMatchObject({ code: 2, stderr: "toolshed: unknown command 'lsit'. Did you mean 'init' or 'list'? Run toolshed --help.\n" });
    expect(toolshed(['expalin'])).toMatchObject({ code: 2, stderr: expect.stringContaining("Did you mean 'explain'?") });
    expect(toolshed(['list', '--formt', 'names'])).toMatchObject({ code: 2, stderr: "toolshed: unknown option '--formt' (Did you mean --format?)\n" });
    expect(toolshed(['trust']).code).toBe(0);
    const tool = toolshed(['explain', 'ecoh']);
    expect(tool.code).toBe(2);
    expect(tool.stderr).toBe("toolshed: no tool named 'ecoh' is registered. Did you mean 'echo'?\n");
  });

  it('takes the host flags before or after the command', () => {
    const before = toolshed(['--enable', 'kitchen', '--disable', 'big,loop,oom,exit', 'list', '--format', 'names']);
    const after = toolshed(['list', '--format', 'names', '--enable', 'kitchen', '--disable', 'big,loop,oom,exit']);
    expect(before.code).toBe(0);
    expect(before.stdout).toBe(after.stdout);
    expect(before.stdout.split('\n')).not.toContain('big');
  });
});

describe('completion', () => {
  it('prints bash, zsh and fish scripts that call back into toolshed', () => {
    const bash = toolshed(['completion', 'bash']);
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain('complete -F');
    expect(bash.stdout).toContain('toolshed complete --');
    expect(toolshed(['completion', 'zsh']).stdout).toContain('#compdef toolshed');
    expect(toolshed(['completion', 'fish']).stdout).toContain('complete -c toolshed');
    expect(toolshed(['completion', 'tcsh']).code).toBe(2);
  });

  it('completes commands, flags and flag values from the command table', () => {
    const words = (args: string[]) =>
      toolshed(['complete', '--', ...args])
        .stdout.split('\n')
        .map((line) => line.split('\t')[0]);
    expect(words(['l'])).toContain('list');
    expect(words(['list', '--f'])).toContain('--format');
    expect(words(['list', '--format', ''])).toEqual(expect.arrayContaining(['openai', 'anthropic', 'names']));
    expect(words(['serve', '--'])).toEqual(expect.arrayContaining(['--http', '--watch', '--root', '--strict']));
  });
});

describe('terminal output', () => {
  it('uses no colour in a pipe, colour with FORCE_COLOR, and none with NO_COLOR', () => {
    expect(toolshed([]).stdout).not.toContain('\u001b[');
    expect(toolshed([], { FORCE_COLOR: '1' }).stdout).toMatch(/\u001b\[32m✓\u001b\[39m toolshed-plugin-kitchen/);
    expect(toolshed([], { FORCE_COLOR: '1', NO_COLOR: '1' }).stdout).not.toContain('\u001b[');
  });

  it('falls back to ASCII symbols when the locale is not UTF-8', () => {
    const ascii = toolshed([], { LANG: 'C' }).stdout;
    expect(ascii).toMatch(/\n {2}\+ toolshed-plugin-kitchen/);
    expect(ascii).toContain(' registered -> ');
    expect(ascii).not.toMatch(/[✓✗→·—]/);
    expect(toolshed([], { LANG: 'en_US.UTF-8' }).stdout).toMatch(/\n {2}✓ toolshed-plugin-kitchen/);
  });

  it('colours on a TTY and notes a slow start on stderr, once', () => {
    writeFileSync(path.join(work.dir, '.toolshedrc.json'), JSON.stringify({ builtins: false, cache: { enabled: false }, plugins: [{ package: fixture('plugins', 'slowload'), trust: 'trusted' }] }));
    // script(1) gives the CLI a pseudo-terminal for stdout and stderr.
    const result = spawnSync('script', ['-qec', `${process.execPath} ${BIN}`, '/dev/null'], {
      cwd: work.dir,
      encoding: 'utf8',
      env: { ...suiteHome(), PATH: process.env.PATH ?? '', TERM: 'xterm-256color', LANG: 'C.UTF-8' },
      timeout: 60_000,
    });
    expect(result.status, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/\u001b\[32m✓\u001b\[39m toolshed-plugin-slowload/);
    expect(result.stdout.match(/toolshed: loading plugins…/g)).toHaveLength(1);
  });

  it('writes no progress note into a pipe', () => {
    writeFileSync(path.join(work.dir, '.toolshedrc.json'), JSON.stringify({ builtins: false, cache: { enabled: false }, plugins: [{ package: fixture('plugins', 'slowload'), trust: 'trusted' }] }));
    expect(toolshed(['trust']).code).toBe(0);
    const result = toolshed(['list', '--format', 'names']);
    expect(result).toMatchObject({ code: 0, stdout: 'slowload\n', stderr: '' });
  });
});
