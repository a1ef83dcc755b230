import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CallOutcome } from 'toolshed';
import type { CodeLimits, CodeToolSpec, ToolCallContext } from '#internal/sandbox/code/runtime.js';

/** Limits small enough for tests to hit on purpose. */
export const LIMITS: CodeLimits = { timeoutMs: 5_000, memoryMb: 32, maxToolCalls: 50, maxOutputChars: 4_000 };

/** The specs the file workspace below serves. */
export const FILE_TOOLS: CodeToolSpec[] = [
  {
    name: 'read_file',
    description: 'Read a UTF-8 file from the workspace.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Path relative to the workspace' } },
      required: ['path'],
      additionalProperties: false,
    },
  },
  {
    name: 'list_files',
    description: 'List the files of the workspace.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
];

/** One recorded host call. */
export interface RecordedCall {
  name: string;
  args: unknown;
  signal: AbortSignal;
}

/**
 * A temp folder with real files and a `callTool` that serves FILE_TOOLS from it the way the
 * host's dispatch would: string results as is, JSON values stringified, failures as envelopes.
 */
export class Workspace {
  readonly calls: RecordedCall[] = [];

  private constructor(readonly dir: string) {}

  /** Creates the folder and writes `files` (name → content) into it. */
  static async create(files: Record<string, string>): Promise<Workspace> {
    const dir = await mkdtemp(path.join(tmpdir(), 'toolshed-code-'));
    for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, name), content);
    return new Workspace(dir);
  }

  /** Removes the folder. */
  async dispose(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  /** The host dispatch stand-in handed to runCode. */
  readonly callTool = async (name: string, args: unknown, context: ToolCallContext): Promise<CallOutcome> => {
    this.calls.push({ name, args, signal: context.signal });
    if (name === 'list_files') {
      const { readdir } = await import('node:fs/promises');
      return { ok: true, text: JSON.stringify((await readdir(this.dir)).sort()) };
    }
    if (name !== 'read_file') return { ok: false, code: 'UNKNOWN_TOOL', message: `Unknown tool "${name}".` };
    const file = (args as { path?: unknown } | null)?.path;
    if (typeof file !== 'string') return { ok: false, code: 'INVALID_ARGUMENTS', message: '/path: must be string' };
    const resolved = path.resolve(this.dir, file);
    if (!resolved.startsWith(this.dir + path.sep))
      return { ok: false, code: 'PERMISSION_DENIED', message: `${file} is outside the workspace` };
    try {
      return { ok: true, text: await readFile(resolved, 'utf8') };
    } catch (error) {
      return {
        ok: false,
        code: 'TOOL_FAILED',
        message: `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      };
    }
  };
}

/** A callTool that must never be reached. */
export async function unreachable(name: string): Promise<CallOutcome> {
  throw new Error(`callTool(${name}) should not have been called`);
}
