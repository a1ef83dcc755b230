// @ts-check
import { countLines, writeAtomic } from './atomic.js';
import { looksBinary } from './binary.js';
import { fsError } from './errors.js';
import { openChecked } from './opened.js';
import { confinedPath, displayPath } from './paths.js';
import { MAX_UNPAGED_BYTES, numberLine } from './read-file.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */

/** Lines of context shown around the change in the result. */
const SNIPPET_CONTEXT = 3;
/** Longest snippet returned, so a huge replacement does not echo the whole file back. */
const SNIPPET_MAX_LINES = 30;

/** Every start index of `needle` in `hay`, without overlaps. */
export function findAll(/** @type {string} */ hay, /** @type {string} */ needle) {
  /** @type {number[]} */
  const at = [];
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + needle.length)) at.push(i);
  return at;
}

/** 1-based line number of character index `i` in `text`. */
export function lineAt(/** @type {string} */ text, /** @type {number} */ i) {
  let n = 1;
  for (let j = text.indexOf('\n'); j !== -1 && j < i; j = text.indexOf('\n', j + 1)) n++;
  return n;
}

/**
 * @param {{ path: string, old_string: string, new_string: string, replace_all?: boolean }} args
 * @param {ToolContext} ctx
 */
async function patch(args, ctx) {
  const { abs, real } = await confinedPath(ctx, args.path, 'write');
  const shown = displayPath(ctx, abs);
  if (args.old_string === args.new_string) {
    throw new Error('old_string and new_string are identical, so there is nothing to change.');
  }
  const buf = await readWhole(ctx, abs, real);
  if (looksBinary(buf))
    throw new Error(`${shown} looks like a binary file (it contains NUL bytes); patch only edits text.`);
  const text = buf.toString('utf8');

  let oldString = args.old_string;
  let newString = args.new_string;
  let at = findAll(text, oldString);
  // read_file shows CRLF files without their `\r`, so a model copies LF text; match it
  // against the file's own line endings and keep them in the replacement.
  if (at.length === 0 && text.includes('\r\n') && oldString.includes('\n') && !oldString.includes('\r\n')) {
    oldString = oldString.replaceAll('\n', '\r\n');
    newString = newString.replaceAll('\r\n', '\n').replaceAll('\n', '\r\n');
    at = findAll(text, oldString);
  }
  if (at.length === 0) throw notFound(text, args.old_string, shown);
  if (at.length > 1 && !args.replace_all) {
    const lines = at.map((i) => lineAt(text, i));
    throw new Error(
      `old_string occurs ${at.length} times in ${shown} (at lines ${lines.join(', ')}). ` +
        'Include more surrounding lines in old_string so it matches exactly one place, ' +
        'or set replace_all to true to change every occurrence.',
    );
  }

  // Slicing rather than String#replace: a `$&` or `$1` in new_string must stay literal.
  let result = '';
  let from = 0;
  for (const i of at) {
    result += text.slice(from, i) + newString;
    from = i + oldString.length;
  }
  result += text.slice(from);
  await writeAtomic(ctx, abs, real, result).catch(async (err) => {
    throw await fsError(ctx, abs, err);
  });

  const firstLine = lineAt(result, at[0] ?? 0);
  return {
    path: shown,
    replacements: at.length,
    line: firstLine,
    snippet: snippet(result, firstLine, Math.max(1, countLines(newString))),
  };
}

/** The file's bytes, read from the handle that was opened and checked (not the path again). */
async function readWhole(/** @type {ToolContext} */ ctx, /** @type {string} */ abs, /** @type {string} */ real) {
  const handle = await openChecked(ctx, abs, real, 'write').catch(async (err) => {
    throw await fsError(ctx, abs, err);
  });
  try {
    const info = await handle.stat().catch(async (err) => {
      throw await fsError(ctx, abs, err);
    });
    if (info.isDirectory()) throw await fsError(ctx, abs, { code: 'EISDIR' });
    if (!info.isFile()) throw new Error(`${displayPath(ctx, abs)} is not a regular file.`);
    if (info.size > MAX_UNPAGED_BYTES) {
      throw new Error(`${displayPath(ctx, abs)} is too large to patch (over ${MAX_UNPAGED_BYTES / (1024 * 1024)} MB).`);
    }
    return await handle.readFile().catch(async (err) => {
      throw await fsError(ctx, abs, err);
    });
  } finally {
    await handle.close();
  }
}

/** Numbered lines around the first change, in read_file's format, so the model can check its edit. */
function snippet(/** @type {string} */ text, /** @type {number} */ line, /** @type {number} */ span) {
  const lines = text.split('\n');
  // A final newline ends the last line; it does not start an empty one.
  if (text.endsWith('\n')) lines.pop();
  const start = Math.max(1, line - SNIPPET_CONTEXT);
  const end = Math.min(lines.length, line + span - 1 + SNIPPET_CONTEXT, start + SNIPPET_MAX_LINES - 1);
  /** @type {string[]} */
  const out = [];
  for (let n = start; n <= end; n++) out.push(numberLine(n, (lines[n - 1] ?? '').replace(/\r$/, '')));
  return out.join('\n');
}

/** Explains a failed match, pointing at the likely cause when one can be seen. */
function notFound(/** @type {string} */ text, /** @type {string} */ oldString, /** @type {string} */ shown) {
  if (/^ *\d+\|/m.test(oldString)) {
    return new Error(
      `old_string was not found in ${shown}. It seems to contain read_file line-number prefixes ("   12|"); ` +
        'remove them and pass only the file text.',
    );
  }
  const loose = looseMatchLine(text, oldString);
  if (loose !== -1) {
    return new Error(
      `old_string was not found in ${shown} exactly, but matches at line ${loose} when indentation and trailing ` +
        'whitespace are ignored. Re-read those lines and copy their exact whitespace.',
    );
  }
  return new Error(
    `old_string was not found in ${shown}. Re-read the file and copy the exact text, including whitespace and ` +
      `line breaks.`,
  );
}

/** First line where `needle`'s lines match `text`'s lines with surrounding whitespace ignored, or -1. */
function looseMatchLine(/** @type {string} */ text, /** @type {string} */ needle) {
  const hay = text.split('\n').map((l) => l.trim());
  const want = needle.split('\n').map((l) => l.trim());
  while (want.length > 0 && want[0] === '') want.shift();
  while (want.length > 0 && want[want.length - 1] === '') want.pop();
  if (want.length === 0) return -1;
  outer: for (let i = 0; i + want.length <= hay.length; i++) {
    for (let j = 0; j < want.length; j++) {
      const h = /** @type {string} */ (hay[i + j]);
      const w = /** @type {string} */ (want[j]);
      // The first and last wanted lines may be fragments of a longer line.
      const ok =
        want.length === 1 ? h.includes(w) : j === 0 ? h.endsWith(w) : j === want.length - 1 ? h.startsWith(w) : h === w;
      if (!ok) continue outer;
    }
    return i + 1;
  }
  return -1;
}

/** The `patch` tool: replaces one exact, unique piece of text in a file. */
export const patchTool = {
  name: 'patch',
  toolset: 'file',
  description: [
    'Edit a file by replacing an exact piece of text. old_string must match the file character for character ' +
      ('(whitespace and line breaks included) and occur exactly once, unless replace_all is true; otherwise the ' +
        'call fails ') +
      ('and says how many matches there were and where. Returns {path, replacements, line, snippet} where ' +
        'snippet shows ') +
      'the changed lines with their numbers.',
    {
      ifAvailable: ['read_file'],
      text: 'Read the file with read_file first and copy old_string from it, without the "   12|" line prefixes.',
    },
  ],
  parameters: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: 'File to edit: absolute, or relative to the working directory.',
      },
      old_string: {
        type: 'string',
        minLength: 1,
        description: 'The exact text to replace. Include enough surrounding lines to make it unique in the file.',
      },
      new_string: { type: 'string', description: 'The text to put in its place (may be empty to delete old_string).' },
      replace_all: {
        type: 'boolean',
        description: 'Replace every occurrence instead of requiring exactly one (default false).',
      },
    },
    required: ['path', 'old_string', 'new_string'],
    additionalProperties: false,
  },
  limits: { timeoutMs: 30_000 },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  handler: patch,
};
