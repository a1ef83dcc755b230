// @ts-check
import { constants, existsSync } from 'node:fs';
import { mkdir, open, readdir, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { allowedRoots, displayPath, isInside, outside } from './paths.js';
import { refuseProtected } from './protect.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */
/** @typedef {import('node:fs/promises').FileHandle} FileHandle */

/**
 * Linux shows the real path of every open descriptor at `/proc/self/fd/<fd>`, and a
 * path through `/proc/self/fd/<dirfd>/<name>` resolves `name` in the very folder the
 * descriptor refers to (like openat/renameat), whatever its path leads to now. So a
 * file is checked after it is opened and a write goes through a checked folder's
 * descriptor: a folder swapped for a link between the check and the use cannot
 * redirect either. Elsewhere (macOS, Windows) there is no such view: files are
 * checked by path and then opened by path, as before, and that race stays open.
 */
const PROC_FD = '/proc/self/fd';

/** Whether opened descriptors are checked here (see above). */
export const checksDescriptors = descriptorsCheckable();

function descriptorsCheckable() {
  if (process.platform !== 'linux') return false;
  // Under Node's permission model (the plugin run untrusted, in the process tier) /proc is
  // not granted and even looking throws; there that tier's sandbox confines the files.
  if (process.permission) return false;
  return existsSync(PROC_FD);
}

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
// A FIFO would block the open until a writer comes; non-blocking, it opens and is then refused as not a regular file.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Where the open descriptor `handle` really is (Linux only). */
function descriptorPath(/** @type {FileHandle} */ handle) {
  return readlink(`${PROC_FD}/${handle.fd}`);
}

/**
 * Opens `real` (checked by confinedPath) for reading and checks that the file it
 * opened lies inside the roots for `access`, then returns it: read only from this
 * handle. A FIFO or device opens without blocking; the caller checks its fstat.
 * Throws PERMISSION_DENIED when a link swapped in after the check led elsewhere.
 * @param {ToolContext} ctx
 * @param {string} abs  the model's path, to show
 * @param {string} real
 * @param {'read' | 'write'} access
 * @returns {Promise<FileHandle>}
 */
export async function openChecked(ctx, abs, real, access) {
  const handle = await open(real, constants.O_RDONLY | O_NONBLOCK);
  if (!checksDescriptors) return handle;
  try {
    const actual = await descriptorPath(handle);
    const roots = await allowedRoots(ctx, access);
    if (!roots.some((root) => isInside(actual, root))) throw outside(ctx, abs, actual, roots, access);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The names in the folder `dir` (for "did you mean" suggestions), listed from the
 * folder that was opened, and none when that one lies outside the read roots.
 * @param {ToolContext} ctx
 * @param {string} dir
 * @returns {Promise<string[]>}
 */
export async function listFolder(ctx, dir) {
  if (!checksDescriptors) return readdir(dir);
  const handle = await open(dir, constants.O_RDONLY | O_DIRECTORY);
  try {
    const actual = await descriptorPath(handle);
    const roots = await allowedRoots(ctx, 'read');
    if (!roots.some((root) => isInside(actual, root))) return [];
    return await readdir(`${PROC_FD}/${handle.fd}`);
  } finally {
    await handle.close();
  }
}

/**
 * A folder checked to lie inside the write roots and not be protected, and the way
 * to reach a name in it: through its descriptor on Linux, by path elsewhere.
 * @typedef {object} Folder
 * @property {string} real  its real path when it was checked
 * @property {(name: string) => string} at  the path that reaches `name` in this folder
 * @property {() => Promise<void>} recheck  checks it again (just before the rename that publishes a write)
 * @property {() => Promise<void>} close
 */

/**
 * Opens the folder `dir` (the real parent of a write target, checked by
 * confinedPath) for writing into, creating missing folders one level at a time,
 * each inside a checked folder and checked once opened (not followed if it is a link).
 * @param {ToolContext} ctx
 * @param {string} abs  the model's path of the file to be written, to show
 * @param {string} dir
 * @returns {Promise<Folder>}
 */
export async function openFolder(ctx, abs, dir) {
  if (!checksDescriptors) return pathFolder(ctx, abs, dir);
  /** @type {FileHandle} */
  let handle;
  try {
    handle = await open(dir, constants.O_RDONLY | O_DIRECTORY);
  } catch (error) {
    const parentDir = path.dirname(dir);
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOENT' || parentDir === dir) throw error;
    const parent = await openFolder(ctx, abs, parentDir);
    try {
      const name = path.basename(dir);
      refuseProtected(ctx, displayPath(ctx, path.join(parent.real, name)), path.join(parent.real, name));
      await mkdir(parent.at(name)).catch((/** @type {NodeJS.ErrnoException} */ err) => {
        if (err.code !== 'EEXIST') throw err;
      });
      handle = await open(parent.at(name), constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } finally {
      await parent.close();
    }
  }
  try {
    const real = await checkFolder(ctx, abs, await descriptorPath(handle));
    const fd = handle.fd;
    return {
      real,
      at: (name) => `${PROC_FD}/${fd}/${name}`,
      recheck: async () => void (await checkFolder(ctx, abs, await descriptorPath(handle))),
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Without descriptor paths: today's check by path, made again before the rename. */
async function pathFolder(/** @type {ToolContext} */ ctx, /** @type {string} */ abs, /** @type {string} */ dir) {
  await mkdir(dir, { recursive: true });
  const real = await checkFolder(ctx, abs, await realpath(dir));
  return {
    real,
    at: (/** @type {string} */ name) => path.join(dir, name),
    recheck: async () => {
      if ((await realpath(dir)) !== dir) {
        throw Object.assign(new Error(`${dir} was replaced by a symbolic link while writing; nothing was written`), {
          code: 'PERMISSION_DENIED',
        });
      }
    },
    close: async () => {},
  };
}

/** Refuses a folder (by its real path) outside the write roots or protected; returns the path. */
async function checkFolder(/** @type {ToolContext} */ ctx, /** @type {string} */ abs, /** @type {string} */ real) {
  const roots = await allowedRoots(ctx, 'write');
  if (!roots.some((root) => isInside(real, root))) throw outside(ctx, abs, real, roots, 'write');
  refuseProtected(ctx, displayPath(ctx, real), real);
  return real;
}
