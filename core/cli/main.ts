/**
 * The `toolshed` command line. Usage errors exit 2 with one line on stderr;
 * host-level errors exit 1 with their code; `call` exits 1 when the result
 * is an error envelope. Commands and flags are defined in commands.ts.
 */
import { CommanderError } from 'commander';
import { ToolshedError, UsageError } from '../../boundary/errors.js';
import { buildProgram } from './program.js';
import { processIo, type CliIo } from './io.js';

/**
 * commander's message as one line: "error: unknown option '--x'\n(Did you mean --y?)" → "unknown option '--x' (Did you
 * mean --y?)".
 */
function oneLine(message: string): string {
  return message
    .replace(/^error: /, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/** Runs the CLI and returns the exit code; output goes to stdout, errors to stderr. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const exit = { code: 0 };
  try {
    await buildProgram(io, exit).parseAsync(argv, { from: 'user' });
    return exit.code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end parsing through the same path, with exit code 0.
      if (error.exitCode === 0) return 0;
      io.err(`toolshed: ${oneLine(error.message)}`);
      return 2;
    }
    if (error instanceof UsageError) {
      io.err(`toolshed: ${error.message}`);
      return 2;
    }
    if (error instanceof ToolshedError) {
      io.err(`toolshed: ${error.code}: ${error.message}`);
      return 1;
    }
    io.err(`toolshed: unexpected error: ${(error as Error)?.stack ?? String(error)}`);
    return 1;
  }
}
