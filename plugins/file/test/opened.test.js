import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  writeSync,
} from 'node:fs';
import { mkdir, readFile, realpath, rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeAtomic } from '../lib/atomic.js';
import { similarNames } from '../lib/errors.js';
import { checksDescriptors, openChecked, openFolder } from '../lib/opened.js';
import { makeCtx, tempDir, tool } from './helpers.js';

let tmp;
let ws;
let out;
let ctx;

beforeEach(async () => {
  tmp = await tempDir();
  const base = await realpath(tmp.dir);
  ws = path.join(base, 'ws');
  out = path.join(base, 'out');
  await mkdir(path.join(ws, 'inside'), { recursive: true });
  await mkdir(out);
  await writeFile(path.join(ws, 'inside', 'f.txt'), 'inside\n');
  await writeFile(path.join(out, 'f.txt'), 'outside\n');
  ctx = makeCtx(ws, {
    roots: { read: [ws], write: [ws], protect: [{ kind: 'path', value: path.join(ws, 'vendor'), why: 'plugin code' }] },
  });
});
afterEach(() => tmp.remove());

/** Replaces `inside/` by a link to the outside folder, as a racing process would between a check and a use. */
async function swapInsideForLink() {
  await rename(path.join(ws, 'inside'), path.join(ws, 'moved'));
  await symlink(out, path.join(ws, 'inside'));
}

describe.runIf(checksDescriptors)('/proc/self/fd on this kernel', () => {
  // What the file tools rely on: a path through a folder's descriptor resolves in that folder
  // (like openat/renameat/mkdirat), even after its path was swapped for a link to elsewhere.
  it('resolves names in the folder a descriptor refers to, not where its old path leads now', async () => {
    const dirfd = openSync(path.join(ws, 'inside'), constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await swapInsideForLink();
      expect(readlinkSync(`/proc/self/fd/${dirfd}`)).toBe(path.join(ws, 'moved'));
      const at = (/** @type {string} */ name) => `/proc/self/fd/${dirfd}/${name}`;
      const fd = openSync(
        at('.x.tmp'),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o666,
      );
      writeSync(fd, 'hello');
      fsyncSync(fd);
      closeSync(fd);
      renameSync(at('.x.tmp'), at('x.txt'));
      mkdirSync(at('sub'));
      symlinkSync(out, path.join(ws, 'moved', 'lnk'));
      expect(() => openSync(at('lnk'), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW)).toThrow();
      expect(readdirSync(path.join(ws, 'moved')).sort()).toEqual(['f.txt', 'lnk', 'sub', 'x.txt']);
      expect(readdirSync(out)).toEqual(['f.txt']);
    } finally {
      closeSync(dirfd);
    }
  });
});

describe.runIf(checksDescriptors)('checks on the opened descriptor', () => {
  it('refuses a read whose checked path was swapped for a link before the open', async () => {
    const checked = path.join(ws, 'inside', 'f.txt');
    await swapInsideForLink();
    const error = await openChecked(ctx, checked, checked, 'read').then(
      () => undefined,
      (err) => err,
    );
    expect(error?.code).toBe('PERMISSION_DENIED');
    expect(error.message).toContain(path.join(out, 'f.txt'));
  });

  it('refuses a write (and a missing folder) whose checked folder was swapped for a link', async () => {
    await swapInsideForLink();
    for (const target of ['inside/new.txt', 'inside/a/b/new.txt']) {
      const error = await writeAtomic(ctx, path.join(ws, target), path.join(ws, target), 'x').then(
        () => undefined,
        (err) => err,
      );
      expect(error?.code).toBe('PERMISSION_DENIED');
    }
    expect(readdirSync(out)).toEqual(['f.txt']);
  });

  it('writes into the folder that was checked even if its path changes afterwards', async () => {
    const folder = await openFolder(ctx, path.join(ws, 'inside', 'x.txt'), path.join(ws, 'inside'));
    try {
      await swapInsideForLink();
      await writeFile(folder.at('x.txt'), 'here');
    } finally {
      await folder.close();
    }
    expect(await readFile(path.join(ws, 'moved', 'x.txt'), 'utf8')).toBe('here');
    expect(readdirSync(out)).toEqual(['f.txt']);
  });

  it('does not create a protected folder, even when asked for it directly', async () => {
    const error = await openFolder(ctx, path.join(ws, 'vendor', 'x.js'), path.join(ws, 'vendor', 'lib')).then(
      () => undefined,
      (err) => err,
    );
    expect(error?.code).toBe('PERMISSION_DENIED');
    expect(error.message).toContain('vendor is protected: plugin code');
    expect(existsSync(path.join(ws, 'vendor'))).toBe(false);
  });
});

describe.runIf(checksDescriptors)('not-found suggestions', () => {
  it('never list a folder that a link swapped in leads to', async () => {
    const read = tool('read_file');
    await writeFile(path.join(out, 'secret-name.txt'), 'x');
    await expect(read.handler({ path: 'inside/secret-nam.txt' }, ctx)).rejects.toThrow('Nothing similar in inside');
    // A stale check: the lister is handed the folder's old path, which now leads outside.
    await swapInsideForLink();
    expect(await similarNames(ctx, path.join(ws, 'inside'), 'secret-nam.txt')).toEqual([]);
    expect(await similarNames(ctx, path.join(ws, 'moved'), 'f.tx')).toEqual(['f.txt']);
  });
});
