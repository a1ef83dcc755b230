/**
 * Cases 1, 2 and 13: an untrusted plugin reads and writes only its own
 * package and what was granted; a symlink inside the package that points
 * outside is refused at load time.
 */
import { cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixture, tempDir, withHost } from '../helpers.js';
import { ATTACKER, call, expectHealthy, untrustedOptions } from './helpers.js';

describe('filesystem: an untrusted plugin without grants', () => {
  let host: ToolHost;
  let scratch: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    scratch = tempDir();
    host = await createToolHost(untrustedOptions([{ package: ATTACKER }]));
  });
  afterAll(async () => {
    await host.close();
    scratch.cleanup();
  });

  it('reads its own package (the sandbox is not simply broken)', async () => {
    const own = await call(host, 'try_read', { path: path.join(ATTACKER, 'package.json') });
    expect(own.allowed).toBe(true);
    expect(own.value).toContain('toolshed-plugin-attacker');
  });

  it('case 1: cannot read /etc/passwd, nor a file outside the grant through ../', async () => {
    const passwd = await call(host, 'try_read', { path: '/etc/passwd' });
    expect(passwd).toMatchObject({ allowed: false, code: 'ERR_ACCESS_DENIED' });
    const dotdot = await call(host, 'try_read', { path: `${ATTACKER}/../outside/secret.txt` });
    expect(dotdot).toMatchObject({ allowed: false, code: 'ERR_ACCESS_DENIED' });
    const relative = await call(host, 'try_read', { path: '../../../package.json' });
    expect(relative).toMatchObject({ allowed: false, code: 'ERR_ACCESS_DENIED' });
    await expectHealthy(host);
  });

  it('case 2: cannot write outside the grant, not even into its own package', async () => {
    const outside = path.join(scratch.dir, 'evil.txt');
    expect(await call(host, 'try_write', { path: outside })).toMatchObject({
      allowed: false,
      code: 'ERR_ACCESS_DENIED',
    });
    expect(existsSync(outside)).toBe(false);
    expect(await call(host, 'try_write', { path: path.join(ATTACKER, 'dropped.txt') })).toMatchObject({
      allowed: false,
      code: 'ERR_ACCESS_DENIED',
    });
    expect(existsSync(path.join(ATTACKER, 'dropped.txt'))).toBe(false);
    await expectHealthy(host);
  });
});

describe('filesystem: granted paths', () => {
  let work: ReturnType<typeof tempDir>;
  beforeAll(() => {
    work = tempDir();
    mkdirSync(path.join(work.dir, 'granted', 'out'), { recursive: true });
    writeFileSync(path.join(work.dir, 'granted', 'data.txt'), 'granted data');
    writeFileSync(path.join(work.dir, 'private.txt'), 'not granted');
  });
  afterAll(() => work.cleanup());

  it('resolves relative grants from the config folder and allows exactly them', async () => {
    const grant = { fsRead: ['./granted'], fsWrite: ['./granted/out'] };
    await withHost(
      untrustedOptions([{ package: fixture('security', 'needs'), grant }], { cwd: work.dir }),
      async (host) => {
        const plugin = host.explain().plugins[0]!;
        expect(plugin.permissions?.effective).toMatchObject({ fsRead: ['./granted'], fsWrite: ['./granted/out'] });
        expect(await call(host, 'needs_read', { path: path.join(work.dir, 'granted', 'data.txt') })).toMatchObject({
          allowed: true,
          value: 'granted data',
        });
        expect(
          await call(host, 'needs_write', { path: path.join(work.dir, 'granted', 'out', 'result.txt') }),
        ).toMatchObject({ allowed: true });
        expect(existsSync(path.join(work.dir, 'granted', 'out', 'result.txt'))).toBe(true);
        // Read-only where only reading was granted; nothing outside.
        expect(await call(host, 'needs_write', { path: path.join(work.dir, 'granted', 'data.txt') })).toMatchObject({
          allowed: false,
          code: 'ERR_ACCESS_DENIED',
        });
        expect(await call(host, 'needs_read', { path: path.join(work.dir, 'private.txt') })).toMatchObject({
          allowed: false,
          code: 'ERR_ACCESS_DENIED',
        });
        expect(await host.dispatch('needs_ping', {})).toBe('pong');
      },
    );
  });

  it('cannot make a link in a granted folder that points out of it (Node requires full permissions for links)', async () => {
    const grant = { fsRead: ['./granted'], fsWrite: ['./granted/out'] };
    await withHost(
      untrustedOptions([{ package: fixture('security', 'needs'), grant }], { cwd: work.dir }),
      async (host) => {
        const at = path.join(work.dir, 'granted', 'out', 'escape');
        // The target is readable (granted) but not writable: still no link to it in the writable folder.
        const out = await call(host, 'needs_link', { target: path.join(work.dir, 'granted', 'data.txt'), at });
        expect(out.symlink).toMatchObject({ allowed: false, code: 'ERR_ACCESS_DENIED' });
        expect(out.hardlink).toMatchObject({ allowed: false, code: 'ERR_ACCESS_DENIED' });
        expect(existsSync(`${at}.sym`) || existsSync(`${at}.hard`)).toBe(false);
      },
    );
  });

  it('grants nothing the plugin did not request (the effective set is the intersection)', async () => {
    const grant = { fsRead: ['./granted', '/etc'], fsWrite: ['./granted/out', '.'] };
    await withHost(
      untrustedOptions([{ package: fixture('security', 'needs'), grant }], { cwd: work.dir }),
      async (host) => {
        expect(host.explain().plugins[0]!.permissions?.effective).toMatchObject({
          fsRead: ['./granted'],
          fsWrite: ['./granted/out'],
        });
        expect(await call(host, 'needs_read', { path: '/etc/passwd' })).toMatchObject({
          allowed: false,
          code: 'ERR_ACCESS_DENIED',
        });
        expect(await call(host, 'needs_write', { path: path.join(work.dir, 'root.txt') })).toMatchObject({
          allowed: false,
          code: 'ERR_ACCESS_DENIED',
        });
      },
    );
  });
});

describe('case 13: symlinks inside the plugin folder', () => {
  let work: ReturnType<typeof tempDir>;
  beforeAll(() => {
    work = tempDir();
    writeFileSync(path.join(work.dir, 'secret.txt'), 'outside the package');
  });
  afterAll(() => work.cleanup());

  const makePlugin = (name: string, link: { name: string; target: string }): string => {
    const dir = path.join(work.dir, name);
    cpSync(ATTACKER, dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({
        name: `toolshed-plugin-${name}`,
        version: '1.0.0',
        type: 'module',
        main: 'index.js',
        toolshed: { apiVersion: 1 },
      }),
    );
    symlinkSync(link.target, path.join(dir, link.name));
    return dir;
  };

  it('refuses to load a plugin whose package holds a link to a file outside what it may read', async () => {
    const dir = makePlugin('linked', { name: 'leak.txt', target: path.join(work.dir, 'secret.txt') });
    await withHost(untrustedOptions([{ package: dir }]), async (host) => {
      const plugin = host.explain().plugins[0]!;
      expect(plugin.status).toBe('failed');
      expect(plugin.error?.code).toBe('PLUGIN_INVALID');
      expect(plugin.error?.message).toContain(
        `${path.join(dir, 'leak.txt')} is a symbolic link to ${path.join(work.dir, 'secret.txt')}`,
      );
      expect(await host.dispatch('try_read', { path: path.join(dir, 'leak.txt') })).toContain('UNKNOWN_TOOL');
    });
  });

  it('refuses a link to a folder outside, and a relative link that climbs out', async () => {
    const toDir = makePlugin('linkdir', { name: 'up', target: work.dir });
    const relative = makePlugin('linkrel', { name: 'rel.txt', target: '../secret.txt' });
    await withHost(untrustedOptions([{ package: toDir }, { package: relative }]), async (host) => {
      const [a, b] = host.explain().plugins;
      expect(a).toMatchObject({ status: 'failed', error: { code: 'PLUGIN_INVALID' } });
      expect(b).toMatchObject({ status: 'failed', error: { code: 'PLUGIN_INVALID' } });
      expect(b!.error!.message).toContain('symbolic link');
    });
  });

  it('allows a link that stays inside the package', async () => {
    const dir = makePlugin('innerlink', { name: 'manifest-copy.json', target: './package.json' });
    await withHost(untrustedOptions([{ package: dir }]), async (host) => {
      expect(host.explain().plugins[0]!.status).toBe('loaded');
      expect(await call(host, 'try_read', { path: path.join(dir, 'manifest-copy.json') })).toMatchObject({
        allowed: true,
      });
    });
  });
});
