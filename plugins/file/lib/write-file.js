// @ts-check
import { writeAtomic, countLines } from './atomic.js';
import { fsError } from './errors.js';
import { confinedPath, displayPath } from './paths.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */

/**
 * @param {{ path: string, content: string }} args
 * @param {ToolContext} ctx
 */
async function writeFile(args, ctx) {
  const { abs, real } = await confinedPath(ctx, args.path, 'write');
  let created;
  try {
    created = await writeAtomic(ctx, abs, real, args.content);
  } catch (err) {
    throw await fsError(ctx, abs, err);
  }
  return {
    path: displayPath(ctx, abs),
    created,
    bytes: Buffer.byteLength(args.content, 'utf8'),
    lines: countLines(args.content),
  };
}

/** The `write_file` tool: creates or replaces a whole file atomically. */
export const writeFileTool = {
  name: 'write_file',
  toolset: 'file',
  description: [
    'Create a file or replace its whole content (UTF-8). Missing parent directories are created, and the write is ' +
      ('atomic (temp file + rename), so readers never see half a file. Only paths inside the workspace (and ' +
        'folders the ') +
      ('operator granted) can be written; a symbolic link is followed only when its target is inside too. ' +
        'Protected files ') +
      '(the toolshed config, .git/hooks and the like) are refused even there. Returns {path, created, bytes, lines}.',
    {
      ifAvailable: ['patch'],
      text: 'To change part of an existing file, prefer patch: it cannot clobber the rest of the file.',
    },
  ],
  parameters: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: 'File to write: absolute, or relative to the working directory.',
      },
      content: { type: 'string', description: 'The complete new content of the file.' },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  limits: { timeoutMs: 30_000 },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: writeFile,
};
