// @ts-check
import { lstat, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { refuseProtected } from './protect.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */

/** The directory relative paths are resolved against: the workspace root. */
export function baseDir(/** @type {ToolContext} */ ctx) {
  return ctx.cwd ?? process.cwd();
}

/** Resolves a model-supplied path (relative, absolute or `~/…`) to an absolute path. */
export function resolvePath(/** @type {ToolContext} */ ctx, /** @type {string} */ p) {
  // Models often write home-relative paths; a shell would expand them, so do the same.
  if (p === '~') return os.homedir();
  if (p.startsWith('~/')) return path.join(os.homedir(), p.slice(2));
  return path.resolve(baseDir(ctx), p);
}

/** Shows a path the way the model should pass it back: relative to cwd when inside it. */
export function displayPath(/** @type {ToolContext} */ ctx, /** @type {string} */ abs) {
  const rel = path.relative(baseDir(ctx), abs);
  if (rel === '') return '.';
  if (rel.startsWith('..') || path.isAbsolute(rel)) return abs;
  return rel.split(path.sep).join('/');
}

/**
 * The folders this plugin may use: `ctx.roots` from the host (the workspace root plus
 * any fsRead/fsWrite the operator granted), or the workspace root alone when the host
 * gives none (a unit test's hand-made ctx). Real paths, so a link cannot fake a prefix.
 * @param {ToolContext} ctx
 * @param {'read' | 'write'} access
 */
export async function allowedRoots(ctx, access) {
  const given = ctx.roots ? (access === 'write' ? ctx.roots.write : ctx.roots.read) : [baseDir(ctx)];
  return Promise.all(given.map((root) => realpath(root).catch(() => path.resolve(root))));
}

/** Whether `target` is `root` or inside it, segment-wise (`/a/b` does not cover `/a/bc`). */
export function isInside(/** @type {string} */ target, /** @type {string} */ root) {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The `PERMISSION_DENIED` error for a path outside the roots. */
export function outside(
  /** @type {ToolContext} */ ctx,
  /** @type {string} */ abs,
  /** @type {string} */ real,
  /** @type {string[]} */ roots,
  /** @type {'read' | 'write'} */ access,
) {
  const shown = displayPath(ctx, abs);
  const via = real !== abs ? ` (it leads to ${real} through a symbolic link)` : '';
  const where = roots.length ? roots.join(', ') : 'no folder at all';
  const message =
    `Permission denied: ${shown}${via} is outside the folders the file tools may ` +
    `${access === 'write' ? 'write' : 'read'}: ${where} ` +
    ('(the workspace root, plus any fsRead/fsWrite the operator granted to @toolshed/file). Use a path inside ' +
      'the workspace.');
  return Object.assign(new Error(message), { code: 'PERMISSION_DENIED', data: { path: abs, real, roots } });
}

/**
 * Where `abs` really leads: the real path of its nearest existing ancestor plus the
 * components that do not exist yet. A link anywhere along it is followed; a link
 * whose target does not exist is refused (writing through it would create its
 * target, wherever that is).
 */
async function realTarget(/** @type {string} */ abs) {
  /** @type {string[]} */
  const missing = [];
  let current = abs;
  for (;;) {
    try {
      return path.join(await realpath(current), ...missing);
    } catch (error) {
      const code = /** @type {NodeJS.ErrnoException} */ (error).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    const link = await lstat(current).then(
      (s) => s.isSymbolicLink(),
      () => false,
    );
    if (link) return undefined;
    const parent = path.dirname(current);
    if (parent === current) return abs;
    missing.unshift(path.basename(current));
    current = parent;
  }
}

/**
 * Checks that a model-supplied path stays inside the plugin's roots for `access`,
 * by real path (links followed, then checked), and for a write that it is not
 * protected, and returns both paths: `abs` to show, `real` to open. Throws
 * PERMISSION_DENIED naming the path and the roots (or why it is protected).
 * A check by path only: a link swapped in before the open could still redirect it,
 * so the opener checks the opened descriptor again (opened.js).
 * @param {ToolContext} ctx
 * @param {string} p
 * @param {'read' | 'write'} access
 * @returns {Promise<{ abs: string, real: string }>}
 */
export async function confinedPath(ctx, p, access) {
  const abs = resolvePath(ctx, p);
  const roots = await allowedRoots(ctx, access);
  const real = await realTarget(abs);
  if (real === undefined) {
    const error = outside(ctx, abs, abs, roots, access);
    error.message =
      `Permission denied: ${displayPath(ctx, abs)} is a symbolic link (or lies below one) whose target does not ` +
      `exist; the file tools do not follow it.`;
    throw error;
  }
  if (!roots.some((root) => isInside(real, root))) throw outside(ctx, abs, real, roots, access);
  // Refused before anything is read or created, so the model hears why first.
  if (access === 'write') refuseProtected(ctx, displayPath(ctx, abs), real);
  return { abs, real };
}

/**
 * Whether `file` (found by walking a checked folder) may be read: not a link, or a link that stays inside the roots.
 */
export async function readableEntry(/** @type {ToolContext} */ ctx, /** @type {string} */ file) {
  const info = await lstat(file).catch(() => undefined);
  if (!info?.isSymbolicLink()) return info !== undefined;
  const real = await realpath(file).catch(() => undefined);
  if (real === undefined) return false;
  const roots = await allowedRoots(ctx, 'read');
  return roots.some((root) => isInside(real, root));
}
