// @ts-check
import os from 'node:os';
import path from 'node:path';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */

/** The directory relative paths are resolved against: the host's cwd. */
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
