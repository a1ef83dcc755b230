// @ts-check
import { isBinaryFile } from './binary.js';
import { fsError } from './errors.js';
import { readLines } from './lines.js';
import { openChecked } from './opened.js';
import { confinedPath, displayPath } from './paths.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */

/** Lines returned when the model gives no `limit`. */
export const DEFAULT_LIMIT = 500;
/** Most lines one call may return. */
export const MAX_LIMIT = 2000;
/** Characters kept of one line; the rest is replaced by a marker. */
export const MAX_LINE_CHARS = 2000;
/** Files larger than this are refused unless the model pages through them explicitly. */
export const MAX_UNPAGED_BYTES = 10 * 1024 * 1024;

/** Formats one numbered line: the line number right-aligned in 6 columns, a `|`, then the text. */
export function numberLine(/** @type {number} */ n, /** @type {string} */ text) {
  return `${String(n).padStart(6)}|${text}`;
}

/**
 * @param {{ path: string, offset?: number, limit?: number }} args
 * @param {ToolContext} ctx
 */
async function readFile(args, ctx) {
  const { abs, real } = await confinedPath(ctx, args.path, 'read');
  // Everything below reads this one checked handle, never the path again.
  const handle = await openChecked(ctx, abs, real, 'read').catch(async (err) => {
    throw await fsError(ctx, abs, err);
  });
  try {
    return await readOpened(args, ctx, abs, handle);
  } finally {
    await handle.close();
  }
}

/**
 * @param {{ path: string, offset?: number, limit?: number }} args
 * @param {ToolContext} ctx
 * @param {string} abs
 * @param {import('node:fs/promises').FileHandle} handle
 */
async function readOpened(args, ctx, abs, handle) {
  const shown = displayPath(ctx, abs);
  const info = await handle.stat().catch(async (err) => {
    throw await fsError(ctx, abs, err);
  });
  if (info.isDirectory()) throw await fsError(ctx, abs, { code: 'EISDIR' });
  if (!info.isFile()) throw new Error(`${shown} is not a regular file.`);

  const paged = args.offset !== undefined || args.limit !== undefined;
  if (info.size > MAX_UNPAGED_BYTES && !paged) {
    throw new Error(
      `${shown} is ${formatBytes(info.size)}, over the ${formatBytes(MAX_UNPAGED_BYTES)} limit for a plain read. ` +
        (`Read it in pages with offset and limit (e.g. {"path": ${JSON.stringify(shown)}, "offset": 1, "limit": ` +
          `${DEFAULT_LIMIT}}), `) +
        'or find the relevant lines first with search_files.',
    );
  }
  if (
    await isBinaryFile(handle).catch(async (err) => {
      throw await fsError(ctx, abs, err);
    })
  ) {
    throw new Error(`${shown} looks like a binary file (it contains NUL bytes); read_file only reads text.`);
  }

  const offset = args.offset ?? 1;
  const limit = Math.min(args.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const last = offset + limit - 1;
  // Counting every line gives a useful "of N" but costs a full scan, so only small files get it.
  const countAll = info.size <= MAX_UNPAGED_BYTES;

  /** @type {string[]} */
  const out = [];
  let n = 0;
  let cutLines = 0;
  let more = false;
  for await (const line of readLines(handle, MAX_LINE_CHARS, ctx.signal)) {
    n++;
    if (n < offset) continue;
    if (n > last) {
      more = true;
      if (!countAll) break;
      continue;
    }
    if (line.cut > 0) cutLines++;
    const text = line.cut > 0 ? `${line.text}… [line cut: ${line.cut} more characters]` : line.text;
    out.push(numberLine(n, text));
  }

  if (n === 0) return `[${shown} is empty]`;
  if (offset > n) {
    throw new Error(
      `offset ${offset} is past the end of ${shown}, which has ${n} lines. Use an offset between 1 and ${n}.`,
    );
  }
  const end = offset + out.length - 1;
  /** @type {string[]} */
  const notes = [];
  if (more) {
    const of = countAll ? ` of ${n}` : '';
    notes.push(`Showing lines ${offset}-${end}${of}. To read more, call read_file with offset=${end + 1}.`);
  }
  if (cutLines > 0) {
    notes.push(
      `${cutLines} line(s) longer than ${MAX_LINE_CHARS} characters were cut; use search_files to find text ` +
        `inside them.`,
    );
  }
  return notes.length > 0 ? `${out.join('\n')}\n\n[${notes.join(' ')}]` : out.join('\n');
}

function formatBytes(/** @type {number} */ n) {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${n} bytes`;
}

/** The `read_file` tool: numbered, paged reading of a text file. */
export const readFileTool = {
  name: 'read_file',
  toolset: 'file',
  description: [
    'Read a text file. Each line comes back as `<line number right-aligned in 6 columns>|<text>`, ' +
      (`e.g. "     1|first line"; the number and "|" are not part of the file. Returns at most ${DEFAULT_LIMIT} ` +
        `lines by default `) +
      (`(up to ${MAX_LIMIT} with limit); when more remain, a closing note in [brackets] gives the offset for ` +
        `the next page. `) +
      (`Lines over ${MAX_LINE_CHARS} characters are cut. Binary files are refused; a missing file gets ` +
        `suggestions of similar names.`),
    {
      ifAvailable: ['patch'],
      text: 'To change a file, copy the exact text (without the line-number prefix) into patch.',
    },
    {
      ifAvailable: ['search_files'],
      text: 'To find where something is in a large file or project, use search_files first.',
    },
  ],
  parameters: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: 'File to read: absolute, or relative to the working directory.',
      },
      offset: { type: 'integer', minimum: 1, description: 'First line to return, 1-based (default 1).' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_LIMIT,
        description: `How many lines to return (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}).`,
      },
    },
    required: ['path'],
    additionalProperties: false,
  },
  limits: { timeoutMs: 30_000 },
  codeCallable: true,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: readFile,
};
