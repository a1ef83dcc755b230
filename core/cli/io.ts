/**
 * The CLI's output channels: stdout for results, stderr for notes and errors, each with its own
 * style. What reaches a terminal has its control characters shown as text (core/text/visible.ts):
 * stderr always (notes, plugins' log lines, MCP servers' stderr, errors are read by people), stdout
 * when it is a terminal (piped, a result is the tool's text exactly; JSON escapes controls itself).
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { visible } from '../text/visible.js';
import { colourEnabled, styleFor, type Style } from './style.js';

/** Where a command writes, and how it decorates what it writes. */
export interface CliIo {
  /** a line (or lines) of results on stdout */
  out(text: string): void;
  /** a line (or lines) for the person on stderr */
  err(text: string): void;
  /** the style for stdout */
  style: Style;
  /** the style for stderr */
  errStyle: Style;
  /** whether a person is watching stderr (progress notes only go there) */
  errIsTTY: boolean;
  /** whether stdout is a terminal (a tool's text is then shown with its control characters as text) */
  outIsTTY?: boolean;
  /** all of stdin as text (for `call TOOL -`) */
  readStdin(): string;
  /** asks a person a question on the terminal and resolves with the line they typed; absent without a terminal */
  ask?(question: string, signal?: AbortSignal): Promise<string>;
  /** the folder the command runs in (default: the process's current folder) */
  cwd?: string;
  /** the environment the host's checks and grants see (default: the process's) */
  env?: Record<string, string | undefined>;
}

/** A question on stderr, the answer from stdin; an abort (a timeout) gives up with an empty answer. */
function askOnTerminal(question: string, signal?: AbortSignal): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  return new Promise<string>((resolve) => {
    const done = (answer: string) => {
      signal?.removeEventListener('abort', onAbort);
      // Resolve first: closing emits 'close', which would otherwise settle with no answer.
      resolve(answer);
      rl.close();
    };
    const onAbort = () => done('');
    signal?.addEventListener('abort', onAbort, { once: true });
    // The question names the tool and its arguments, which the model chose.
    rl.question(visible(question), done);
    // Ctrl-D or a closed stdin is no answer.
    rl.once('close', () => resolve(''));
  });
}

const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

/** The process's own stdout, stderr and stdin. */
export function processIo(): CliIo {
  const outColours = colourEnabled(process.stdout);
  const errColours = colourEnabled(process.stderr);
  return {
    out: (text) => void process.stdout.write(line(process.stdout.isTTY === true ? visible(text, outColours) : text)),
    err: (text) => void process.stderr.write(line(visible(text, errColours))),
    style: styleFor(process.stdout),
    errStyle: styleFor(process.stderr),
    errIsTTY: process.stderr.isTTY === true,
    outIsTTY: process.stdout.isTTY === true,
    readStdin: () => readFileSync(0, 'utf8'),
    ...(process.stdin.isTTY === true && process.stderr.isTTY === true ? { ask: askOnTerminal } : {}),
  };
}
