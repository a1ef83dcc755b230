/**
 * `toolshed call` and config `approve`: on a terminal the call asks and waits
 * for the answer; without one (a pipe, a script, CI) it is refused unless
 * `--yes` approves it. The terminal is a real pseudo-terminal from `script`
 * (util-linux, in Debian's essential bsdutils package). A terminal or its absence is the process's,
 * so those calls run as real processes; --yes and explain run by main() in this process
 * (test/helpers.ts's toolshedMain).
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, suiteHome, tempDir, toolshedMain } from '../helpers.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
const work = tempDir();
writeFileSync(path.join(work.dir, 'package.json'), '{"name":"cli-approval","private":true}');
writeFileSync(
  path.join(work.dir, '.toolshedrc.json'),
  JSON.stringify({
    builtins: false,
    cache: { enabled: false },
    plugins: [{ package: fixture('plugins', 'notes'), trust: 'trusted' }],
    approve: ['delete_note'],
  }),
);
afterAll(() => work.cleanup());

const env = { ...suiteHome(), PATH: process.env.PATH ?? '' };
const call = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, 'call', ...args], {
    cwd: work.dir,
    encoding: 'utf8',
    env,
    input: '',
    timeout: 60_000,
  });
/** `toolshed ARGS` in the project, run by main() in this process (no terminal to ask on). */
const run = (...args: string[]) => toolshedMain(args, { cwd: work.dir, env });

/** Runs `toolshed call delete_note` on a pseudo-terminal and types `answer` once the question is on screen. */
function onTerminal(answer: string): Promise<{ code: number | null; screen: string }> {
  const command = `'${process.execPath}' '${BIN}' call delete_note '{"id":"a"}'`;
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: work.dir, env: { ...env, TERM: 'dumb' } });
  let screen = '';
  let typed = false;
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
    if (!typed && screen.includes('Run it? [y/N]')) {
      typed = true;
      child.stdin.write(`${answer}\r`);
    }
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, screen })));
}

describe('toolshed call with approve', () => {
  it('refuses without a terminal, saying how to get it run', () => {
    const result = call('delete_note', '{"id":"a"}');
    expect(result.status).toBe(1);
    const envelope = JSON.parse(result.stdout);
    expect(envelope.code).toBe('APPROVAL_DENIED');
    expect(envelope.error).toContain('there is no terminal to ask on; run it on a terminal to be asked, or pass --yes');
  });

  // -y is --yes: test/unit/cli-program.test.ts.
  it('runs it with --yes, and runs tools that need no approval as before', async () => {
    expect(await run('call', 'delete_note', '{"id":"a"}', '--yes')).toMatchObject({ code: 0, stdout: 'deleted a\n' });
    expect(await run('call', 'read_note', '{"id":"a"}')).toMatchObject({ code: 0, stdout: 'note a\n' });
  });

  it('toolshed explain says which tools need approval, and their hints', async () => {
    // explain without a tool prints the summary, then every tool: each tool's block up to the next.
    const result = await run('explain');
    expect(result.code).toBe(0);
    const blocks = result.stdout.split(/\n(?=\S+: (?:exposed|hidden))/);
    const block = (name: string) => blocks.find((b) => b.startsWith(`${name}: `)) ?? '';
    expect(block('delete_note')).toContain('approval: needed before each call (listed in approve)');
    expect(block('delete_note')).toContain('hints:    destructive');
    const read = block('read_note');
    expect(read).toContain('hints:    "Read a note", read-only, idempotent, closed world');
    expect(read).not.toContain('approval:');
  });

  it('asks on a terminal and runs the call when the answer is yes', async () => {
    const { code, screen } = await onTerminal('y');
    expect(screen).toContain('delete_note needs approval');
    expect(screen).toContain('arguments: {"id":"a"}');
    expect(screen).toContain('deleted a');
    expect(code).toBe(0);
  });

  it('refuses the call when the answer on the terminal is no', async () => {
    const { code, screen } = await onTerminal('n');
    expect(screen).toContain('"code":"APPROVAL_DENIED"');
    expect(screen).toContain('refused on the terminal');
    expect(code).toBe(1);
  });
});
