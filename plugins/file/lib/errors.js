// @ts-check
import path from 'node:path';
import { stat } from 'node:fs/promises';
import { distance } from 'fastest-levenshtein';
import { listFolder } from './opened.js';
import { displayPath } from './paths.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */

/** Up to `max` entries of `dir` whose names resemble `name`, closest first. */
export async function similarNames(
  /** @type {ToolContext} */ ctx,
  /** @type {string} */ dir,
  /** @type {string} */ name,
  max = 3,
) {
  /** @type {string[]} */
  let entries;
  try {
    entries = await listFolder(ctx, dir);
  } catch {
    return [];
  }
  const wanted = name.toLowerCase();
  // A third of the name's length tolerates typos and a changed extension without
  // suggesting unrelated files for short names.
  const tolerance = Math.max(2, Math.floor(wanted.length / 3));
  return entries
    .map((entry) => {
      const lower = entry.toLowerCase();
      const contains = lower.includes(wanted) || wanted.includes(lower);
      return { entry, score: contains ? 0.5 : distance(wanted, lower) };
    })
    .filter((c) => c.score <= tolerance)
    .sort((a, b) => a.score - b.score || a.entry.localeCompare(b.entry))
    .slice(0, max)
    .map((c) => c.entry);
}

/** Builds the "no such file" error, naming similar files in the same directory when there are any. */
export async function notFoundError(/** @type {ToolContext} */ ctx, /** @type {string} */ abs) {
  const dir = path.dirname(abs);
  const shown = displayPath(ctx, abs);
  const dirShown = displayPath(ctx, dir);
  const dirExists = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!dirExists) {
    return new Error(
      `File not found: ${shown}. The directory ${dirShown} does not exist either; list files with search_files.`,
    );
  }
  const suggestions = await similarNames(ctx, dir, path.basename(abs));
  if (suggestions.length === 0) {
    return new Error(`File not found: ${shown}. Nothing similar in ${dirShown}; list files with search_files.`);
  }
  const list = suggestions.map((s) => displayPath(ctx, path.join(dir, s))).join(', ');
  return new Error(`File not found: ${shown}. Did you mean: ${list}?`);
}

/** Turns a Node fs error about `abs` into a message a model can act on. */
export async function fsError(/** @type {ToolContext} */ ctx, /** @type {string} */ abs, /** @type {any} */ err) {
  const shown = displayPath(ctx, abs);
  switch (err?.code) {
    case 'PERMISSION_DENIED':
      // Already says which path and why (outside the roots, or protected).
      return err;
    case 'ENOENT':
      return notFoundError(ctx, abs);
    case 'EACCES':
    case 'EPERM':
      return new Error(`Permission denied: ${shown}.`, { cause: err });
    case 'EISDIR':
      return new Error(
        `${shown} is a directory, not a file. List it with search_files {"path": ${JSON.stringify(shown)}}.`,
        { cause: err },
      );
    case 'ENOTDIR':
      return new Error(`A parent of ${shown} is a file, not a directory.`, { cause: err });
    default:
      return new Error(`Cannot access ${shown}: ${err?.message ?? String(err)}`, { cause: err });
  }
}
