// @ts-check
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { openFolder } from './opened.js';
import { displayPath } from './paths.js';
import { refuseProtected } from './protect.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */

/**
 * Writes `data` to `real` (a real path already checked against the roots, see
 * paths.js) through a temp file and a rename, so a reader never sees a half-written
 * file. Both happen inside the target's folder as opened and checked by openFolder
 * (through its descriptor on Linux), so a folder swapped for a link after the check
 * cannot send the write elsewhere, and the target's real path is checked for
 * protection there. The temp file has a random name and is created exclusively
 * without following links (`O_CREAT|O_EXCL|O_NOFOLLOW`), so nothing planted is ever
 * opened; the rename replaces the name in that folder and never follows a link.
 * An existing file keeps its mode.
 * @param {ToolContext} ctx
 * @param {string} abs  the model's path, to show
 * @param {string} real
 * @param {string} data
 * @returns {Promise<boolean>} true when the file did not exist before
 */
export async function writeAtomic(ctx, abs, real, data) {
  const name = path.basename(real);
  const folder = await openFolder(ctx, abs, path.dirname(real));
  try {
    refuseProtected(ctx, displayPath(ctx, abs), path.join(folder.real, name));
    const before = await lstat(folder.at(name)).catch((err) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (before?.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    const temp = `.${name}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(
      folder.at(temp),
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
      0o666,
    );
    try {
      try {
        await handle.writeFile(data, 'utf8');
        if (before?.isFile()) await handle.chmod(before.mode & 0o7777);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await folder.recheck();
      await rename(folder.at(temp), folder.at(name));
    } catch (error) {
      await rm(folder.at(temp), { force: true });
      throw error;
    }
    return before === undefined;
  } finally {
    await folder.close();
  }
}

/** Counts lines the way an editor shows them: a trailing newline does not start a new line. */
export function countLines(/** @type {string} */ text) {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}
