// @ts-check
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, realpath, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `data` to `real` (a real path already checked against the roots, see
 * paths.js) through a temp file and a rename, so a reader never sees a half-written
 * file. The temp file has a random name and is created exclusively without following
 * links (`O_CREAT|O_EXCL|O_NOFOLLOW`), so nothing planted is ever opened; the rename
 * replaces the target and never follows a link. Just before the rename the folder's
 * real path is checked again, so a folder swapped for a link in the meantime is
 * refused instead of written through. An existing file keeps its mode.
 * @returns {Promise<boolean>} true when the file did not exist before
 */
export async function writeAtomic(/** @type {string} */ real, /** @type {string} */ data) {
  const before = await lstat(real).catch((err) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (before?.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  const dir = path.dirname(real);
  await mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.${path.basename(real)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o666);
  try {
    try {
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (before) await chmod(temp, before.mode & 0o7777);
    if ((await realpath(dir)) !== dir) {
      throw Object.assign(new Error(`${dir} was replaced by a symbolic link while writing; nothing was written`), { code: 'PERMISSION_DENIED' });
    }
    await rename(temp, real);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return before === undefined;
}

/** Counts lines the way an editor shows them: a trailing newline does not start a new line. */
export function countLines(/** @type {string} */ text) {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}
