import { chmod, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countLines } from '../lib/atomic.js';
import { makeCtx, tempDir, tool } from './helpers.js';

const write = tool('write_file').handler;
let tmp;
let ctx;

beforeEach(async () => {
  tmp = await tempDir();
  ctx = makeCtx(tmp.dir);
});
afterEach(() => tmp.remove());

describe('write_file', () => {
  it('creates a file and its missing parent directories, reporting bytes and lines', async () => {
    const result = await write({ path: 'a/b/c.txt', content: 'héllo\nworld\n' }, ctx);
    expect(result).toEqual({ path: 'a/b/c.txt', created: true, bytes: 13, lines: 2 });
    expect(await readFile(path.join(tmp.dir, 'a/b/c.txt'), 'utf8')).toBe('héllo\nworld\n');
  });

  it('replaces an existing file, keeps its mode and leaves no temp file behind', async () => {
    const file = path.join(tmp.dir, 'run.sh');
    await writeFile(file, 'old');
    await chmod(file, 0o755);
    const result = await write({ path: 'run.sh', content: '#!/bin/sh\necho hi' }, ctx);
    expect(result).toEqual({ path: 'run.sh', created: false, bytes: 17, lines: 2 });
    expect(await readFile(file, 'utf8')).toBe('#!/bin/sh\necho hi');
    expect((await stat(file)).mode & 0o777).toBe(0o755);
    expect(await readdir(tmp.dir)).toEqual(['run.sh']);
  });

  it('writes an empty file', async () => {
    expect(await write({ path: 'empty', content: '' }, ctx)).toEqual({
      path: 'empty',
      created: true,
      bytes: 0,
      lines: 0,
    });
    expect((await stat(path.join(tmp.dir, 'empty'))).size).toBe(0);
  });

  it('writes through a symlink instead of replacing it', async () => {
    await writeFile(path.join(tmp.dir, 'target.txt'), 'old');
    await symlink('target.txt', path.join(tmp.dir, 'link.txt'));
    await write({ path: 'link.txt', content: 'new' }, ctx);
    expect(await readFile(path.join(tmp.dir, 'target.txt'), 'utf8')).toBe('new');
    expect(await readlink(path.join(tmp.dir, 'link.txt'))).toBe('target.txt');
  });

  it('refuses to write over a directory', async () => {
    await mkdir(path.join(tmp.dir, 'dir'));
    await expect(write({ path: 'dir', content: 'x' }, ctx)).rejects.toThrow(/dir is a directory/);
  });

  it('explains when a parent path is a file', async () => {
    await writeFile(path.join(tmp.dir, 'file'), 'x');
    await expect(write({ path: 'file/child.txt', content: 'x' }, ctx)).rejects.toThrow(
      /parent of file\/child\.txt is a file/,
    );
  });

  it('counts lines like an editor', () => {
    expect([countLines(''), countLines('a'), countLines('a\n'), countLines('a\nb'), countLines('\n\n')]).toEqual([
      0, 1, 1, 2, 2,
    ]);
  });
});
