import { readFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import plugin from '../index.js';
import { DEFAULT_PATH, childEnv } from '../lib/env.js';
import { HEAD_CHARS, RESULT_CHARS, TAIL_CHARS } from '../lib/terminal.js';
import { isGone, makeCtx, tempDir, terminal } from './helpers.js';

let tmp;
let ctx;
/** pids of background processes a test started on purpose, killed in teardown */
let strays = [];

beforeEach(async () => {
  tmp = await tempDir();
  ctx = makeCtx(tmp.dir);
  strays = [];
});
afterEach(async () => {
  for (const pid of strays) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await tmp.remove();
});

async function pidFrom(file) {
  return Number((await readFile(file, 'utf8')).trim());
}

describe('terminal', () => {
  it('runs a command and reports its output and exit code', async () => {
    const result = await terminal({ command: 'echo hello; echo oops >&2; exit 3' }, ctx);
    expect(result.exitCode).toBe(3);
    expect(result.signal).toBeNull();
    expect(result.timedOut).toBe(false);
    expect(result.output).toContain('hello\n');
    expect(result.output).toContain('oops\n');
    expect(result.note).toBeUndefined();
    expect(result.durationMs).toEqual(expect.any(Number));
  });

  it('keeps stdout order within a stream and reports success as 0', async () => {
    const result = await terminal({ command: 'for i in 1 2 3; do echo $i; done' }, ctx);
    expect(result).toMatchObject({ exitCode: 0, output: '1\n2\n3\n' });
  });

  it('runs in the working directory, or in cwd relative to it', async () => {
    await mkdir(path.join(tmp.dir, 'sub'));
    expect((await terminal({ command: 'pwd -P' }, ctx)).output).toBe(`${tmp.dir}\n`);
    expect((await terminal({ command: 'pwd -P', cwd: 'sub' }, ctx)).output).toBe(`${path.join(tmp.dir, 'sub')}\n`);
  });

  it('rejects a cwd that is missing or not a directory', async () => {
    await writeFile(path.join(tmp.dir, 'file'), '');
    await expect(terminal({ command: 'true', cwd: 'nope' }, ctx)).rejects.toThrow(/cwd nope does not exist/);
    await expect(terminal({ command: 'true', cwd: 'file' }, ctx)).rejects.toThrow(/cwd file is not a directory/);
  });

  it('gives the command only the granted env plus a PATH', async () => {
    process.env.TOOLSHED_TEST_SECRET = 'leaked';
    try {
      const result = await terminal(
        { command: 'echo "[$FOO][$TOOLSHED_TEST_SECRET]"; command -v sh' },
        { ...ctx, env: { FOO: 'bar' } },
      );
      expect(result.output).toMatch(/^\[bar\]\[\]\n\/.*sh\n$/);
    } finally {
      delete process.env.TOOLSHED_TEST_SECRET;
    }
  });

  it('builds PATH from the grant, or from the system default with Node first', () => {
    expect(childEnv({ PATH: '/opt/bin', X: '1', UNSET: undefined })).toEqual({ PATH: '/opt/bin', X: '1' });
    const fallback = childEnv({}).PATH.split(':');
    expect(fallback[0]).toBe(path.dirname(process.execPath));
    for (const dir of DEFAULT_PATH.split(':')) expect(fallback).toContain(dir);
  });

  it('closes stdin so a command waiting for input ends at once', async () => {
    const result = await terminal({ command: 'read line; echo "got [$line] $?"', timeoutMs: 20_000 }, ctx);
    expect(result.timedOut).toBe(false);
    expect(result.output).toBe('got [] 1\n');
  });

  // Both wait for their deadline (and the second for the grace before SIGKILL): they run side by side.
  it('kills the whole process group on timeout, and escalates to SIGKILL for commands that ignore SIGTERM', async () => {
    const pidFile = path.join(tmp.dir, 'bg.pid');
    // The deadline must leave the shell time to start, fork and write the pid file first; a
    // loaded machine can take a good part of 300 ms to get that far.
    const timingOut = terminal(
      { command: `sleep 30 >/dev/null 2>&1 & echo $! > ${pidFile}; echo started; sleep 30`, timeoutMs: 1_000 },
      ctx,
    );
    // A SIGTERM that came before the shell ran `trap` would end it without the escalation.
    const ignoring = terminal(
      { command: "trap '' TERM; echo ready; while :; do sleep 0.05; done", timeoutMs: 1_000 },
      ctx,
    );
    const [result, escalated] = await Promise.all([timingOut, ignoring]);
    const bg = await pidFrom(pidFile);
    strays.push(bg);
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGTERM');
    expect(result.output).toBe('started\n');
    expect(result.note).toMatch(/Timed out after 1000 ms/);
    expect(result.durationMs).toBeLessThan(30_000);
    await vi.waitFor(async () => expect(await isGone(bg)).toBe(true), { timeout: 5000, interval: 20 });
    expect(escalated.timedOut).toBe(true);
    expect(escalated.signal).toBe('SIGKILL');
  });

  it('kills the group and fails when the host aborts the call', async () => {
    const pidFile = path.join(tmp.dir, 'self.pid');
    const call = terminal({ command: `echo $$ > ${pidFile}; sleep 30` }, ctx);
    await vi.waitFor(async () => expect((await readFile(pidFile, 'utf8').catch(() => '')).trim()).not.toBe(''), {
      timeout: 5000,
      interval: 10,
    });
    const pid = await pidFrom(pidFile);
    strays.push(pid);
    ctx.controller.abort();
    await expect(call).rejects.toThrow(/cancelled; its process group was killed/);
    await vi.waitFor(async () => expect(await isGone(pid)).toBe(true), { timeout: 5000, interval: 20 });
  });

  it('refuses to start when already aborted', async () => {
    ctx.controller.abort();
    await expect(terminal({ command: 'echo hi' }, ctx)).rejects.toThrow(/cancelled before it started/);
  });

  it('caps long output to its head and tail with a marker', async () => {
    // One long line: no character that JSON escapes, so the result's JSON is the output's length plus a little.
    const result = await terminal({ command: "head -c 100000 /dev/zero | tr '\\0' a" }, ctx);
    const full = 'a'.repeat(100000);
    const omitted = full.length - HEAD_CHARS - TAIL_CHARS;
    expect(result.exitCode).toBe(0);
    expect(result.output).toBe(
      `${full.slice(0, HEAD_CHARS)}\n\n[... ${omitted} characters omitted ...]\n\n${full.slice(-TAIL_CHARS)}`,
    );
    expect(result.note).toMatch(new RegExp(`Output was ${omitted} characters too long`));
  });

  it('cuts the middle further when the output is longer as JSON (newlines, quotes, control characters), keeping its start and end', async () => {
    const result = await terminal({ command: 'seq 1 200000' }, ctx);
    expect(result.exitCode).toBe(0);
    expect(result.output.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.output.endsWith('199999\n200000\n')).toBe(true);
    expect(result.output).toMatch(/\n\n\[\.\.\. \d+ characters omitted \.\.\.\]\n\n/);
    expect(JSON.stringify(result).length).toBeLessThanOrEqual(RESULT_CHARS);
    expect(result.note).toContain('its middle was cut further');
  });

  it('returns when the shell exits even if a background job keeps the output open', async () => {
    const pidFile = path.join(tmp.dir, 'held.pid');
    const result = await terminal({ command: `sleep 30 & echo $! > ${pidFile}; echo done`, timeoutMs: 20_000 }, ctx);
    strays.push(await pidFrom(pidFile));
    expect(result.exitCode).toBe(0);
    expect(result.timedOut).toBe(false);
    expect(result.output).toBe('done\n');
    expect(result.note).toMatch(/Background processes still hold the output open/);
  });

  it('is not callable from execute_code and needs bash', () => {
    const tool = plugin.tools[0];
    expect(tool.codeCallable).toBe(false);
    expect(tool.requires.bins).toEqual(['bash']);
    expect(Object.keys(plugin.toolsets)).toEqual(['terminal']);
    for (const prop of Object.values(tool.parameters.properties)) expect(prop.description).toEqual(expect.any(String));
  });
});
