/**
 * Cases 8 and 9, and the child's lifecycle: stuck handlers (a busy loop, a
 * synchronous sleep) end as TOOL_TIMEOUT; a child that stops answering is
 * killed with SIGKILL at twice the call's timeout; results and output are
 * capped; a crash gets a fresh child; close() leaves no process behind.
 */
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { ProcessRunner } from '#internal/core/runners/process/process-runner.js';
import { fixture, tempDir } from '../helpers.js';
import { ATTACKER, call, expectHealthy, HAS_PROC, processesMentioning, untrustedOptions } from './helpers.js';

const MAX_RESULT_CHARS = 20_000;
/**
 * As for users: the second host reads the plugin's manifest from the cache instead of starting a child to extract it.
 */
const MANIFEST_CACHE = { enabled: true };

/** The process group of a pid, from /proc/<pid>/stat (field 5). */
function processGroup(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

describe('deadlines and caps', () => {
  let host: ToolHost;
  let work: ReturnType<typeof tempDir>;
  let pluginDir: string;
  beforeAll(async () => {
    // A private copy, so the processes of this host can be told apart from other tests' by their command line.
    work = tempDir();
    pluginDir = path.join(work.dir, 'attacker');
    cpSync(ATTACKER, pluginDir, { recursive: true });
    host = await createToolHost(
      untrustedOptions([{ package: pluginDir }], {
        config: { cache: MANIFEST_CACHE, limits: { maxResultChars: MAX_RESULT_CHARS, threads: 1 } },
      }),
    );
  });
  afterAll(async () => {
    await host.close();
    work.cleanup();
  });

  it('case 8: a busy loop ends as TOOL_TIMEOUT and the next call works', async () => {
    expect(await call(host, 'spin')).toMatchObject({ code: 'TOOL_TIMEOUT' });
    await expectHealthy(host);
  });

  it('case 8: a synchronous sleep (Atomics.wait) ends as TOOL_TIMEOUT and the next call works', async () => {
    expect(await call(host, 'sleep_sync')).toMatchObject({ code: 'TOOL_TIMEOUT' });
    await expectHealthy(host);
  });

  it.runIf(HAS_PROC)(
    'kills the whole child process group with SIGKILL at twice the timeout when the child stops answering',
    async () => {
      await expectHealthy(host);
      const before = processesMentioning(pluginDir);
      expect(before.length).toBeGreaterThan(0);
      // Freeze the child from outside: it cannot reply, abort or clean up. Only the host's hard deadline can end this
      // call.
      const group = processGroup(before[0]!);
      process.kill(-group, 'SIGSTOP');
      const out = await call(host, 'spin');
      expect(out).toMatchObject({ code: 'TOOL_TIMEOUT' });
      await vi.waitFor(() => expect(processesMentioning(pluginDir).filter((pid) => before.includes(pid))).toEqual([]), {
        timeout: 5_000,
      });
      await expectHealthy(host);
      expect(processesMentioning(pluginDir).some((pid) => !before.includes(pid))).toBe(true);
    },
  );

  it('case 9: a 100 MB result is capped, with the truncation marker naming its size', async () => {
    const text = await host.dispatch('huge_result', {});
    expect(text.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    expect(text).toMatch(/\[RESULT_TRUNCATED: showing \d+ of 104857600 characters\]$/);
    await expectHealthy(host);
  });

  it.runIf(HAS_PROC)('close() kills every child and leaves no process behind', async () => {
    const other = await createToolHost(
      untrustedOptions([{ package: pluginDir }], { config: { cache: MANIFEST_CACHE } }),
    );
    await expectHealthy(other);
    expect(processesMentioning(pluginDir).length).toBeGreaterThan(0);
    await other.close();
    await host.close();
    expect(processesMentioning(pluginDir)).toEqual([]);
  });
});

describe('the runner itself', () => {
  const hooks = {
    callTool: async () => ({ ok: false as const, code: 'PERMISSION_DENIED' as const, message: 'no nested calls here' }),
  };
  let runner: ProcessRunner;
  beforeAll(() => {
    runner = new ProcessRunner({
      name: 'attacker',
      entry: pathToFileURL(path.join(ATTACKER, 'index.js')).href,
      dir: ATTACKER,
      dependencyDirs: [],
      cwd: fixture(),
      env: {},
      memoryMb: 64,
      threads: 1,
      maxQueue: 4,
      maxResultChars: 10_000,
    });
  });
  afterAll(() => runner.close());

  it('case 9: keeps a bounded tail of a stdout and stderr flood', async () => {
    const out = await runner.handle(
      { tool: 'stdout_flood', args: { mb: 16 }, timeoutMs: 30_000, maxResultChars: 10_000 },
      hooks,
    );
    expect(out).toEqual({ ok: true, value: { text: 'flooded', originalLength: 7 } });
    await vi.waitFor(() => expect(runner.diagnostics().outputBytesSeen).toBeGreaterThanOrEqual(32 * 1024 * 1024), {
      timeout: 10_000,
    });
    expect(runner.diagnostics().outputBytesHeld).toBeLessThanOrEqual(64 * 1024);
  });

  it('a crash is TOOL_CRASHED-shaped and the next call gets a fresh child', async () => {
    const started = runner.diagnostics().childrenStarted;
    const crash = await runner.handle(
      { tool: 'memory_bomb', args: {}, timeoutMs: 30_000, maxResultChars: 10_000 },
      hooks,
    );
    expect(crash).toMatchObject({ ok: false, failure: { kind: 'crashed', outOfMemory: true } });
    const next = await runner.handle({ tool: 'ping', args: {}, timeoutMs: 30_000, maxResultChars: 10_000 }, hooks);
    expect(next).toEqual({ ok: true, value: { text: 'pong', originalLength: 4 } });
    expect(runner.diagnostics().childrenStarted).toBe(started + 1);
  });

  it('refuses calls beyond threads + maxQueue', async () => {
    const calls = Array.from({ length: 6 }, () =>
      runner.handle({ tool: 'ping', args: {}, timeoutMs: 30_000, maxResultChars: 100 }, hooks),
    );
    const outcomes = await Promise.all(calls);
    expect(outcomes.filter((o) => !o.ok && 'failure' in o && o.failure.kind === 'queue-full')).toHaveLength(1);
  });
});
