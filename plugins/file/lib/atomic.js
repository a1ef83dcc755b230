// @ts-check
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';

/**
 * Writes `data` to `file` through a temp file and a rename, so a reader never sees
 * a half-written file. write-file-atomic also follows symlinks and keeps the old
 * file's mode, which a plain rename would lose.
 * @returns {Promise<boolean>} true when the file did not exist before
 */
export async function writeAtomic(/** @type {string} */ file, /** @type {string} */ data) {
  const existed = await stat(file).then(
    (s) => {
      if (s.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
      return true;
    },
    (err) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    },
  );
  if (!existed) await mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, data, { encoding: 'utf8' });
  return !existed;
}

/** Counts lines the way an editor shows them: a trailing newline does not start a new line. */
export function countLines(/** @type {string} */ text) {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}
