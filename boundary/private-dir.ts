/**
 * Per-user state on disk (the manifest cache, the todo plugin's lists) that no
 * other local user can read, plant, replace or redirect. A state folder is
 * created 0700 and checked on every use: a real directory (not a link), owned
 * by this user, with no group or other bits, under ancestors that only this
 * user or root can rename things in. Files in it are opened without following
 * links, checked on the open descriptor, and written through a fresh temp file
 * that is created exclusively (never an existing name) and renamed into place.
 * Anything else is refused with PERMISSION_DENIED and a message that says what
 * to fix. (On Windows, which has no uids or mode bits, only the link rules apply.)
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { codedError } from './errors.js';

const GROUP_OTHER = 0o077;
const GROUP_OTHER_WRITE = 0o022;
const STICKY = 0o1000;
// O_NOFOLLOW is POSIX; on Windows the constant is absent and links are checked by lstat alone.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

const uid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

function refuse(what: string, problem: string, fix: string): never {
  throw codedError('PERMISSION_DENIED', `refusing to use ${what} for per-user state: ${problem}. ${fix}`);
}

/** Who owns an ancestor, in words: ours, root, or another uid. */
function checkAncestor(dir: string, me: number): void {
  const info = lstatSync(dir);
  if (info.uid !== me && info.uid !== 0) {
    refuse(
      dir,
      `it is owned by uid ${info.uid}, who could replace anything below it`,
      'Keep per-user state under a folder that only you (or root) own.',
    );
  }
  if ((info.mode & GROUP_OTHER_WRITE) !== 0 && (info.mode & STICKY) === 0) {
    refuse(
      dir,
      'other users may write to it and it has no sticky bit, so they could rename what is below it',
      'Keep per-user state under a folder that only you can write.',
    );
  }
}

/**
 * Creates `dir` (mode 0700, parents too) when missing and checks that it is
 * private to this user; returns its real path. An existing folder of this
 * user that others can read but never could write is tightened to 0700.
 */
export function ensurePrivateDir(dir: string): string {
  const absolute = path.resolve(dir);
  const me = uid();
  // The ancestors that exist are checked before anything is created below them.
  if (me !== undefined) checkAncestors(existingAncestor(absolute), me);
  mkdirSync(absolute, { recursive: true, mode: 0o700 });
  const info = lstatSync(absolute);
  if (info.isSymbolicLink())
    refuse(absolute, 'it is a symbolic link', 'Point the setting at a real folder, not a link.');
  if (!info.isDirectory()) refuse(absolute, 'it is not a directory', 'Remove it or choose another folder.');
  if (me === undefined) return absolute;
  if (info.uid !== me)
    refuse(
      absolute,
      `it is owned by uid ${info.uid}, not by this user (uid ${me})`,
      'Remove it (another user may have planted it) or choose a folder only you own.',
    );
  if ((info.mode & GROUP_OTHER_WRITE) !== 0) {
    refuse(
      absolute,
      `its mode ${(info.mode & 0o777).toString(8)} lets other users write to it, so its contents cannot be trusted`,
      `Remove it, or empty it and run chmod 700 ${absolute}.`,
    );
  }
  // Readable by others but never writable by them: nothing can have been planted, so make it private.
  if ((info.mode & GROUP_OTHER) !== 0) chmodSync(absolute, 0o700);
  checkAncestors(path.dirname(absolute), me);
  return absolute;
}

/** The nearest of `dir`'s ancestors that exists. */
function existingAncestor(dir: string): string {
  let current = path.dirname(dir);
  while (!existsSync(current) && path.dirname(current) !== current) current = path.dirname(current);
  return current;
}

/** Checks `dir` (by real path) and every folder above it. */
function checkAncestors(dir: string, me: number): void {
  for (let current = realpathSync(dir); ; current = path.dirname(current)) {
    checkAncestor(current, me);
    if (path.dirname(current) === current) return;
  }
}

/** Checks a state file's open descriptor: a regular file of this user that no one else can write. */
function checkFile(file: string, info: Stats): void {
  if (!info.isFile()) refuse(file, 'it is not a regular file', 'Remove it.');
  const me = uid();
  if (me === undefined) return;
  if (info.uid !== me) refuse(file, `it is owned by uid ${info.uid}, not by this user (uid ${me})`, 'Remove it.');
  if ((info.mode & GROUP_OTHER_WRITE) !== 0)
    refuse(file, `its mode ${(info.mode & 0o777).toString(8)} lets other users write to it`, 'Remove it.');
}

/** Opens `file` without following a link at its last component; ELOOP means it is one. */
function openNoFollow(file: string, flags: number, mode?: number): number {
  try {
    return openSync(file, flags | NOFOLLOW, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') refuse(file, 'it is a symbolic link', 'Remove it.');
    throw error;
  }
}

/**
 * Reads a state file as UTF-8, or undefined when it does not exist. The folder must have passed {@link
 * ensurePrivateDir}.
 */
export function readPrivateFile(file: string): string | undefined {
  let fd: number;
  try {
    fd = openNoFollow(file, constants.O_RDONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    checkFile(file, fstatSync(fd));
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces a state file atomically: the data goes to a temp file with a random
 * name, created exclusively with mode 0600 (so no planted file or link is ever
 * opened), then renamed over the target (a rename replaces a link, never follows it).
 */
export function writePrivateFile(file: string, data: string): void {
  const existing = (() => {
    try {
      return lstatSync(file);
    } catch {
      return undefined;
    }
  })();
  if (existing?.isSymbolicLink()) refuse(file, 'it is a symbolic link', 'Remove it.');
  if (existing) checkFile(file, existing);
  const temp = writeTemp(file, data);
  try {
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Creates a state file with `data` unless one exists already: false when it did (then read
 * that one). The whole content appears at once under the name (a hard link of a complete temp
 * file, which fails if the name is taken), so two processes racing to create it agree on one.
 */
export function createPrivateFile(file: string, data: string): boolean {
  const temp = writeTemp(file, data);
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Writes `data` to a fresh temp file beside `file`: a random name, created exclusively with mode 0600. */
function writeTemp(file: string, data: string): string {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openNoFollow(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    // The umask may have cleared bits of 0600 but never adds any; set it exactly anyway.
    fchmodSync(fd, 0o600);
    writeFileSync(fd, data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  return temp;
}
