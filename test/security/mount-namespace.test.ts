/**
 * The mount namespace: where bubblewrap is installed, an untrusted plugin's
 * child runs in a filesystem that holds only the node runtime, toolshed's
 * runtime files, the plugin's package and dependencies, its grants, a private
 * /tmp, /dev/null, /dev/urandom and its own /proc. A raw pipe handle rebuilt
 * from Node internals (around Socket#connect and the permission model) then
 * finds no host socket to connect to; on Node 25+ the permission model already
 * refuses it without the network grant. Without bwrap (forced off here) the
 * child falls back to unshare and explain says what that leaves open. The
 * launcher is also checked on its own, with /bin/sh, as other tiers use it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { launchCommand } from '#internal/boundary/launch/launch.js';
import { probeSandbox } from '#internal/boundary/launch/probe.js';
import { tempDir, withHost, suiteHome } from '../helpers.js';
import { ATTACKER, call, expectHealthy, unixServer, untrustedOptions, withEnv } from './helpers.js';

const BWRAP = probeSandbox().bwrap !== undefined;
if (!BWRAP)
  console.warn(
    `[security] bubblewrap is not usable here (${probeSandbox().bwrapReason}): untrusted plugins see the host's filesystem. npm test installs it (scripts/test-prerequisites.mjs).`,
  );

describe('an untrusted plugin in its mount namespace', () => {
  let host: ToolHost;
  let socket: Awaited<ReturnType<typeof unixServer>>;
  beforeAll(async () => {
    socket = await unixServer('host secret\n');
    host = await createToolHost(untrustedOptions([{ package: ATTACKER }]));
  });
  afterAll(async () => {
    await host.close();
    await socket.close();
  });

  it('explain reports bubblewrap and the mount namespace (or says plainly why not)', () => {
    const protections = host.explain().plugins[0]!.protections!;
    if (BWRAP) {
      expect(protections).toMatchObject({
        launcher: 'bwrap',
        mountNamespace: true,
        pidNamespace: true,
        netNamespace: true,
        permissionModel: true,
      });
    } else {
      expect(protections.mountNamespace).toBe(false);
      expect(protections.reason).toMatch(/bubblewrap|bwrap/);
    }
  });

  it('a raw pipe handle rebuilt from internals cannot connect to a Unix socket the host listens on', async () => {
    const out = await call(host, 'raw_unix_connect', { path: socket.path });
    if (host.explain().plugins[0]!.protections!.netPermission) {
      // Node 25+ without --allow-net: the permission model refuses the TCP probe the attack takes its connect
      // request from (and checks a raw pipe connect itself), so it stops before the namespace is reached.
      expect(out.connected).toBe(false);
      expect(socket.connections()).toBe(0);
      return expectHealthy(host);
    }
    // The attack itself works: the handle was rebuilt, so only the namespace stands in its way.
    expect(out.rebuilt).toBe(true);
    if (BWRAP) {
      expect(out.connected).toBe(false);
      expect(out.status).toBe(-2); // ENOENT: the socket's path does not exist in the child's filesystem
      expect(socket.connections()).toBe(0);
    } else {
      console.warn('[security] NO mount namespace: a raw handle reaches a host Unix socket. See docs/security.md.');
      expect(out.connected).toBe(true);
    }
    await expectHealthy(host);
  });
});

describe('the fallback without bubblewrap (forced off)', () => {
  it('runs under unshare, says so in explain and the summary, and the raw connect then reaches the host socket', async () => {
    const socket = await unixServer('host secret\n');
    try {
      await withEnv('TOOLSHED_SANDBOX_BWRAP', 'off', () =>
        withHost(untrustedOptions([{ package: ATTACKER }]), async (host) => {
          const protections = host.explain().plugins[0]!.protections!;
          expect(protections.mountNamespace).toBe(false);
          expect(protections.launcher).not.toBe('bwrap');
          expect(protections.reason).toContain('TOOLSHED_SANDBOX_BWRAP=off');
          const out = await call(host, 'raw_unix_connect', { path: socket.path });
          if (protections.netPermission) {
            // Node 25+ without --allow-net: Node's permission model refuses it, mount namespace or not.
            expect(out.connected).toBe(false);
            expect(socket.connections()).toBe(0);
          } else {
            console.warn(
              `[security] with bubblewrap off, a raw pipe handle reaches a host Unix socket (connected: ${out.connected}); docs/security.md says so.`,
            );
            expect(out).toMatchObject({ rebuilt: true, connected: true, data: 'host secret\n' });
            expect(socket.connections()).toBe(1);
          }
          await expectHealthy(host);
        }),
      );
    } finally {
      await socket.close();
    }
  });

  it('the summary names the launcher and the missing mount namespace', async () => {
    const work = tempDir();
    try {
      writeFileSync(
        path.join(work.dir, 'toolshed.config.json'),
        JSON.stringify({ builtins: false, plugins: [{ package: ATTACKER, trust: 'untrusted' }] }),
      );
      const cli = (env: Record<string, string>) =>
        spawnSync(
          process.execPath,
          [
            fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url)),
            '--config',
            path.join(work.dir, 'toolshed.config.json'),
          ],
          {
            cwd: work.dir,
            encoding: 'utf8',
            env: { ...suiteHome(), PATH: process.env.PATH ?? '', ...env },
            timeout: 60_000,
          },
        );
      const fallback = cli({ TOOLSHED_SANDBOX_BWRAP: 'off' });
      expect(fallback.status, fallback.stderr).toBe(0);
      expect(fallback.stdout).not.toContain('own mount namespace');
      expect(fallback.stdout).toMatch(/not in force: .*TOOLSHED_SANDBOX_BWRAP=off.*the host filesystem stays in view/);
      const normal = cli({});
      expect(normal.status, normal.stderr).toBe(0);
      if (BWRAP)
        expect(normal.stdout).toContain(
          'own mount namespace (bwrap: only its package, its grants and the node runtime exist)',
        );
      else expect(normal.stdout).toMatch(/not in force: .*(bwrap|bubblewrap)/);
    } finally {
      work.cleanup();
    }
  });
});

describe('the launcher for any program (runtime: system)', () => {
  const sh = (
    script: string,
    options: { readPaths?: string[]; writePaths?: string[]; cwd?: string } = {},
    support = probeSandbox(),
  ) => {
    const launch = launchCommand(
      {
        command: '/bin/sh',
        args: ['-c', script],
        readPaths: options.readPaths ?? [],
        writePaths: options.writePaths ?? [],
        network: false,
        env: { PATH: '/usr/bin:/bin' },
        cwd: options.cwd ?? '/',
        runtime: 'system',
      },
      support,
    );
    const result = spawnSync(launch.command, launch.args, {
      cwd: launch.cwd,
      env: launch.env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { ...result, protections: launch.protections };
  };

  it('shows a shell only the system runtime, its paths, a private /tmp, /dev/null, /dev/urandom and its own /proc', () => {
    const work = tempDir();
    try {
      const readable = path.join(work.dir, 'in');
      const writable = path.join(work.dir, 'out');
      mkdirSync(readable);
      mkdirSync(writable);
      writeFileSync(path.join(readable, 'data.txt'), 'granted\n');
      writeFileSync(path.join(work.dir, 'secret.txt'), 'not granted\n');
      const script = [
        `cat ${readable}/data.txt`,
        `test -e ${work.dir}/secret.txt && echo SECRET-VISIBLE`,
        'test -e /etc/passwd && echo PASSWD-VISIBLE',
        'test -e /root && echo ROOT-VISIBLE',
        'echo "dev: $(ls /dev | tr "\\n" " ")"',
        'echo "tmp: $(ls -A /tmp | tr "\\n" " ")"',
        'echo "procs: $(ls /proc | grep -c "^[0-9]")"',
        `echo x > ${readable}/new.txt 2>/dev/null && echo READ-PATH-WRITABLE`,
        `echo written > ${writable}/new.txt && echo write-ok`,
        'echo "cwd: $(pwd)"',
      ].join('; ');
      const out = sh(script, { readPaths: [readable], writePaths: [writable], cwd: readable });
      expect(out.status, out.stderr).toBe(0);
      if (!BWRAP) {
        expect(out.protections.mountNamespace).toBe(false);
        expect(out.stdout).toContain('SECRET-VISIBLE');
        return;
      }
      expect(out.protections).toMatchObject({
        launcher: 'bwrap',
        mountNamespace: true,
        netNamespace: true,
        pidNamespace: true,
      });
      expect(out.stdout).toContain('granted');
      for (const leak of ['SECRET-VISIBLE', 'PASSWD-VISIBLE', 'ROOT-VISIBLE', 'READ-PATH-WRITABLE'])
        expect(out.stdout).not.toContain(leak);
      expect(out.stdout).toContain('dev: null urandom ');
      // The host's /tmp is not there: only the mount point of the granted folders (which live under it here).
      expect(out.stdout).toContain(`tmp: ${path.basename(work.dir)} \n`);
      expect(out.stdout).toContain('write-ok');
      expect(out.stdout).toContain(`cwd: ${readable}`);
      // Only the shell's own processes (the launcher's init, sh, ls/grep) exist in its /proc.
      expect(Number(/procs: (\d+)/.exec(out.stdout)![1])).toBeLessThan(6);
    } finally {
      work.cleanup();
    }
  });

  it('without bwrap falls back to unshare (or nothing) and says the host filesystem stays in view', async () => {
    const support = await withEnv('TOOLSHED_SANDBOX_BWRAP', 'off', async () => probeSandbox());
    expect(support.bwrap).toBeUndefined();
    const out = sh('test -e /etc/passwd && echo PASSWD-VISIBLE', {}, support);
    expect(out.status, out.stderr).toBe(0);
    expect(out.protections.mountNamespace).toBe(false);
    expect(out.protections.reason).toContain('bubblewrap disabled by TOOLSHED_SANDBOX_BWRAP=off');
    expect(out.stdout).toContain('PASSWD-VISIBLE');
    if (support.unshare)
      expect(out.protections).toMatchObject({ launcher: 'unshare', pidNamespace: true, netNamespace: true });
    else
      console.warn(`[security] no unshare either here (${support.unshareReason}): the fallback is no namespace at all`);
  });
});
