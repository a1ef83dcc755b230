/**
 * The per-user state rules one by one, on real folders, files and links in a
 * temp dir (the second-uid attacks are in per-user-state.test.ts).
 */
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir, readPrivateFile, writePrivateFile } from '#internal/boundary/private-dir.js';
import { tempDir } from '../helpers.js';

let work: ReturnType<typeof tempDir>;
beforeEach(() => {
  work = tempDir('toolshed-private-');
});
afterEach(() => work.cleanup());

const mode = (p: string) => statSync(p).mode & 0o777;

describe('private state folders', () => {
  it('creates missing folders 0700', () => {
    const dir = path.join(work.dir, 'a', 'b');
    expect(ensurePrivateDir(dir)).toBe(dir);
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(work.dir, 'a'))).toBe(0o700);
  });

  it('tightens a folder of ours that others could read but never write, and refuses one they could write', () => {
    const readable = path.join(work.dir, 'readable');
    mkdirSync(readable);
    chmodSync(readable, 0o755);
    ensurePrivateDir(readable);
    expect(mode(readable)).toBe(0o700);
    const open = path.join(work.dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(() => ensurePrivateDir(open)).toThrow(
      expect.objectContaining({
        code: 'PERMISSION_DENIED',
        message: expect.stringContaining('its mode 777 lets other users write to it'),
      }),
    );
    expect(mode(open)).toBe(0o777);
  });

  it('refuses a link in place of the folder, and a folder under a group-writable folder without the sticky bit', () => {
    const real = path.join(work.dir, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, path.join(work.dir, 'link'));
    expect(() => ensurePrivateDir(path.join(work.dir, 'link'))).toThrow(/is a symbolic link/);
    const shared = path.join(work.dir, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o775);
    expect(() => ensurePrivateDir(path.join(shared, 'state'))).toThrow(
      /other users may write to it and it has no sticky bit/,
    );
    chmodSync(shared, 0o1777);
    expect(ensurePrivateDir(path.join(shared, 'state'))).toBe(path.join(shared, 'state'));
  });
});

describe('private state files', () => {
  it('writes 0600 through a fresh temp file and reads back; a missing file reads as undefined', () => {
    const dir = ensurePrivateDir(path.join(work.dir, 'state'));
    const file = path.join(dir, 'list.json');
    expect(readPrivateFile(file)).toBeUndefined();
    writePrivateFile(file, '{"a":1}');
    expect(mode(file)).toBe(0o600);
    expect(readPrivateFile(file)).toBe('{"a":1}');
    writePrivateFile(file, '{"a":2}');
    expect(readPrivateFile(file)).toBe('{"a":2}');
  });

  it('neither reads nor writes through a link, and leaves its target alone', () => {
    const dir = ensurePrivateDir(path.join(work.dir, 'state'));
    const target = path.join(work.dir, 'target.txt');
    writeFileSync(target, 'precious');
    const file = path.join(dir, 'list.json');
    symlinkSync(target, file);
    expect(() => readPrivateFile(file)).toThrow(/is a symbolic link/);
    expect(() => writePrivateFile(file, 'x')).toThrow(/is a symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('precious');
  });

  it('refuses a state file others may write', () => {
    const dir = ensurePrivateDir(path.join(work.dir, 'state'));
    const file = path.join(dir, 'list.json');
    writeFileSync(file, 'x');
    chmodSync(file, 0o666);
    expect(() => readPrivateFile(file)).toThrow(/its mode 666 lets other users write to it/);
  });
});
