// @ts-check
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { glob as findGlob } from 'tinyglobby';
import { looksBinary } from './binary.js';
import { fsError } from './errors.js';
import { openChecked } from './opened.js';
import { confinedPath, displayPath, readableEntry } from './paths.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */

/** Hits (or listed files) returned when the model gives no `limit`. */
export const DEFAULT_LIMIT = 100;
/** Most hits one call may return. */
export const MAX_LIMIT = 1000;
/** Files over this size are not searched (logs, dumps, bundles). */
export const MAX_SEARCH_BYTES = 5 * 1024 * 1024;
/** Characters of a matching line shown in a hit. */
const MAX_HIT_CHARS = 300;
/** Directories never searched: dependencies and VCS internals drown real hits. */
const IGNORED = ['**/node_modules/**', '**/.git/**'];

/**
 * @typedef {object} SearchArgs
 * @property {string} [pattern]
 * @property {boolean} [regex]
 * @property {boolean} [ignore_case]
 * @property {string} [glob]
 * @property {string} [path]
 * @property {number} [limit]
 */

/**
 * Lets `*.ts` mean "any .ts file at any depth", as in ripgrep and .gitignore; a
 * glob with a slash is taken as written, relative to the search path.
 */
export function normalizeGlob(/** @type {string} */ g) {
  const trimmed = g.replace(/^\.\//, '');
  return trimmed.includes('/') ? trimmed : `**/${trimmed}`;
}

/** Builds the line matcher, or throws an error that says how to fix the pattern. */
export function compilePattern(/** @type {string} */ pattern, regex = true, ignoreCase = false) {
  const source = regex ? pattern : pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  try {
    return new RegExp(source, ignoreCase ? 'i' : '');
  } catch (err) {
    throw new Error(
      `Invalid regular expression ${JSON.stringify(pattern)}: ${/** @type {Error} */ (err).message}. ` +
        'Fix it (JavaScript syntax), or set regex to false to search for the text literally.',
    );
  }
}

/** Cuts a long line to a window around the match so one minified line cannot flood the result. */
function clip(/** @type {string} */ line, /** @type {number} */ index) {
  if (line.length <= MAX_HIT_CHARS) return line;
  const start = Math.max(0, Math.min(index - 100, line.length - MAX_HIT_CHARS));
  const end = start + MAX_HIT_CHARS;
  return `${start > 0 ? '…' : ''}${line.slice(start, end)}${end < line.length ? '…' : ''}`;
}

/**
 * @param {SearchArgs} args
 * @param {ToolContext} ctx
 */
async function searchFiles(args, ctx) {
  const { abs: root, real: realRoot } = await confinedPath(ctx, args.path ?? '.', 'read');
  const info = await stat(realRoot).catch(async (err) => {
    throw await fsError(ctx, root, err);
  });
  const limit = Math.min(args.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const globText = args.glob ?? '**/*';

  /** @type {string[]} absolute paths, sorted */
  let files;
  if (info.isFile()) files = [root];
  else {
    const found = await findGlob(normalizeGlob(globText), {
      cwd: root,
      ignore: IGNORED,
      dot: true,
      onlyFiles: true,
      followSymbolicLinks: false,
      absolute: true,
      signal: ctx.signal,
    });
    files = found.map((f) => path.normalize(f)).sort();
  }
  const where = `${displayPath(ctx, root)}${info.isFile() ? '' : ` (glob ${globText})`}`;

  if (args.pattern === undefined || args.pattern === '') return listFiles(files, limit, where, ctx);
  const re = compilePattern(args.pattern, args.regex ?? true, args.ignore_case ?? false);

  /** @type {string[]} */
  const hits = [];
  let more = false;
  let binary = 0;
  let large = 0;
  let outside = 0;
  const filesWithHits = new Set();
  let searched = 0;
  for (const file of files) {
    if (ctx.signal?.aborted) throw new Error('search_files was cancelled.');
    searched++;
    if (searched % 200 === 0) ctx.progress?.(searched, files.length);
    // Links are not followed out of the roots: one that leads outside is skipped and counted.
    if (!(await readableEntry(ctx, file))) {
      outside++;
      continue;
    }
    const buf = await readChecked(ctx, file);
    if (buf === 'outside') {
      outside++;
      continue;
    }
    if (buf === 'large') {
      large++;
      continue;
    }
    if (buf === null) continue;
    if (looksBinary(buf)) {
      binary++;
      continue;
    }
    const lines = buf.toString('utf8').split('\n');
    const shown = displayPath(ctx, file);
    for (let i = 0; i < lines.length; i++) {
      const line = /** @type {string} */ (lines[i]).replace(/\r$/, '');
      const m = re.exec(line);
      if (m === null) continue;
      if (hits.length === limit) {
        more = true;
        break;
      }
      hits.push(`${shown}:${i + 1}:${clip(line, m.index)}`);
      filesWithHits.add(file);
    }
    if (more) break;
  }

  /** @type {string[]} */
  const notes = [];
  if (hits.length === 0) notes.push(`No matches for ${describe(args)} in ${searched} file(s) under ${where}.`);
  else if (more) {
    notes.push(
      `Showing the first ${hits.length} matches; there are more. Narrow the pattern, glob or path` +
        (limit < MAX_LIMIT ? `, or raise limit (up to ${MAX_LIMIT}).` : '.'),
    );
  } else notes.push(`${hits.length} match(es) in ${filesWithHits.size} file(s); searched ${searched} file(s).`);
  if (binary > 0) notes.push(`Skipped ${binary} binary file(s).`);
  if (outside > 0) notes.push(`Skipped ${outside} symbolic link(s) leading outside the workspace.`);
  if (large > 0) notes.push(`Skipped ${large} file(s) over ${MAX_SEARCH_BYTES / (1024 * 1024)} MB.`);
  const footer = `[${notes.join(' ')}]`;
  return hits.length > 0 ? `${hits.join('\n')}\n\n${footer}` : footer;
}

/**
 * The content of `file` read from the handle that was opened and checked (a link
 * swapped in during the walk cannot lead the read out), or why it is skipped:
 * 'outside' the roots, 'large', or null (gone, unreadable, not a regular file).
 * @returns {Promise<Buffer | 'outside' | 'large' | null>}
 */
async function readChecked(/** @type {ToolContext} */ ctx, /** @type {string} */ file) {
  const handle = await openChecked(ctx, file, file, 'read').catch((err) =>
    err?.code === 'PERMISSION_DENIED' ? 'outside' : null,
  );
  if (handle === null || handle === 'outside') return handle;
  try {
    const info = await handle.stat();
    if (!info.isFile()) return null;
    if (info.size > MAX_SEARCH_BYTES) return 'large';
    return await handle.readFile();
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

function describe(/** @type {SearchArgs} */ args) {
  const shown = (args.regex ?? true) ? `/${args.pattern}/` : JSON.stringify(args.pattern);
  return `${shown}${args.ignore_case ? ' (ignoring case)' : ''}`;
}

function listFiles(
  /** @type {string[]} */ files,
  /** @type {number} */ limit,
  /** @type {string} */ where,
  /** @type {ToolContext} */ ctx,
) {
  if (files.length === 0) return `[No files under ${where}.]`;
  const shown = files.slice(0, limit).map((f) => displayPath(ctx, f));
  const footer =
    files.length > limit
      ? `[Showing ${limit} of ${files.length} files. Narrow the glob or path` +
        (limit < MAX_LIMIT ? `, or raise limit (up to ${MAX_LIMIT}).]` : '.]')
      : `[${files.length} file(s).]`;
  return `${shown.join('\n')}\n\n${footer}`;
}

/** The `search_files` tool: grep-like content search, or a file listing by glob. */
export const searchFilesTool = {
  name: 'search_files',
  toolset: 'file',
  description:
    'Search file contents line by line, or list files. With pattern: returns one hit per matching line as ' +
    '`path:line:text` (1-based line numbers, paths relative to the working directory), then a [bracketed] summary. ' +
    'Without pattern: lists the files matching glob, one per line. node_modules and .git are skipped, and so are ' +
    (`binary files and files over ${MAX_SEARCH_BYTES / (1024 * 1024)} MB. Results stop at limit and the summary ` +
      `says when more exist.`),
  parameters: {
    type: 'object',
    properties: {
      pattern: {
        type: 'string',
        description:
          'What to look for in each line: a JavaScript regular expression (e.g. "^export (async )?function" or ' +
          '"TODO|FIXME"), or plain text when regex is false. Omit to list files instead.',
      },
      regex: {
        type: 'boolean',
        description: 'Treat pattern as a regular expression (default true); false searches for the literal text.',
      },
      ignore_case: { type: 'boolean', description: 'Match letters case-insensitively (default false).' },
      glob: {
        type: 'string',
        description:
          'Which files to search or list (default "**/*", every file). A glob without "/" matches file names ' +
          'at any depth ("*.ts" = "**/*.ts"); with "/" it is relative to path ("src/**/*.js"). Braces work: ' +
          '"*.{js,ts}".',
      },
      path: {
        type: 'string',
        description:
          'Directory to search in (default: the working directory), or a single file to search (glob is then ignored).',
      },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_LIMIT,
        description:
          `Most matching lines (or listed files) to return (default ${DEFAULT_LIMIT}, ` + `at most ${MAX_LIMIT}).`,
      },
    },
    additionalProperties: false,
  },
  limits: { timeoutMs: 60_000 },
  codeCallable: true,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: searchFiles,
};
