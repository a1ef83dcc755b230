/**
 * Cases 3, 4, 6 and 7: no child processes, no native code, no signals to the
 * host, no thread or memory bombs. After every attack the host answers and
 * the next call works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { withHost } from '../helpers.js';
import { ATTACKER, call, expectHealthy, untrustedOptions } from './helpers.js';

const DENIED = { allowed: false, code: 'ERR_ACCESS_DENIED' };

describe('processes and native code', () => {
  let host: ToolHost;
  beforeAll(async () => {
    // A small heap keeps the memory bombs quick; one thread per child keeps the budget small.
    host = await createToolHost(
      untrustedOptions([{ package: ATTACKER }], { config: { limits: { memoryMb: 64, threads: 1 } } }),
    );
  });
  afterAll(() => host.close());

  it('case 3: spawn, exec, execFile, fork and their sync forms are denied', async () => {
    const out = await call(host, 'try_spawn');
    for (const how of ['spawn', 'exec', 'execSync', 'spawnSync', 'execFile', 'fork'])
      expect(out[how], how).toMatchObject(DENIED);
    await expectHealthy(host);
  });

  it('case 4: process.dlopen, addon require, process.binding and linked bindings are denied', async () => {
    const out = await call(host, 'try_addon');
    expect(out.dlopen).toMatchObject({ allowed: false, code: 'ERR_DLOPEN_DISABLED' });
    expect(out.require.allowed).toBe(false);
    expect(out.binding).toMatchObject(DENIED);
    expect(out.linkedBinding).toMatchObject(DENIED);
    await expectHealthy(host);
  });

  it('case 6: kill of the parent, of its process group, raw kill, inspector activation and renice are denied; the host survives', async () => {
    const out = await call(host, 'kill_host');
    for (const how of ['killParent', 'killParentGroup', 'rawKill', 'inspectParent', 'renice'])
      expect(out[how], how).toMatchObject(DENIED);
    const pidNamespace = host.explain().plugins[0]!.protections!.pidNamespace;
    // In its own PID namespace the child has no parent it can see at all.
    if (pidNamespace) expect(out.ppid).toBe(0);
    expect(await call(host, 'kill_own_group')).toMatchObject(DENIED);
    expect(process.kill(process.pid, 0)).toBe(true);
    await expectHealthy(host);
  });

  it('case 7: a worker bomb cannot start a single thread', async () => {
    const out = await call(host, 'worker_bomb');
    expect(out).toMatchObject({ started: 0, ...DENIED });
    await expectHealthy(host);
  });

  it('case 7: a heap bomb dies at the heap limit as TOOL_CRASHED; the next call gets a fresh child', async () => {
    const out = await call(host, 'memory_bomb');
    expect(out.code).toBe('TOOL_CRASHED');
    expect(out.error).toContain('out of memory');
    await expectHealthy(host);
  });

  it('case 7: an off-heap (Buffer) bomb is killed by the memory watchdog', async () => {
    const watchdog = host.explain().plugins[0]!.protections!.memoryWatchdog;
    if (!watchdog)
      console.warn(
        '[security] no memory watchdog on this platform: an off-heap memory bomb is bounded only by the hard deadline',
      );
    expect(watchdog).toBe(process.platform === 'linux');
    if (!watchdog) return;
    // The budget here is the child's one heap (64 + 8) + 256 = 328 MB; the bomb stops by itself at 4 GB if nothing
    // kills it.
    const out = await call(host, 'buffer_bomb', { limitMb: 4096 });
    expect(out.code).toBe('TOOL_CRASHED');
    expect(out.error).toMatch(/over its budget of 328 MB/);
    await expectHealthy(host);
  });
});

describe('without namespaces (the fallback on machines that lack them)', () => {
  it('still denies signals to the host, which is then the parent the child can see', async () => {
    const saved = process.env.TOOLSHED_SANDBOX_NAMESPACES;
    process.env.TOOLSHED_SANDBOX_NAMESPACES = 'off';
    try {
      await withHost(untrustedOptions([{ package: ATTACKER }]), async (host) => {
        const protections = host.explain().plugins[0]!.protections!;
        expect(protections).toMatchObject({ permissionModel: true, pidNamespace: false, netNamespace: false });
        expect(protections.reason).toContain('TOOLSHED_SANDBOX_NAMESPACES=off');
        const out = await call(host, 'kill_host');
        expect(out.ppid).toBe(process.pid);
        for (const how of ['killParent', 'killParentGroup', 'rawKill', 'inspectParent', 'renice'])
          expect(out[how], how).toMatchObject(DENIED);
        expect(process.kill(process.pid, 0)).toBe(true);
        await expectHealthy(host);
      });
    } finally {
      if (saved === undefined) delete process.env.TOOLSHED_SANDBOX_NAMESPACES;
      else process.env.TOOLSHED_SANDBOX_NAMESPACES = saved;
    }
  });
});
