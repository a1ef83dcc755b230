/** The CLI's output channels: stdout for results, stderr for notes and errors, each with its own style. */
import { readFileSync } from 'node:fs';
import { styleFor, type Style } from './style.js';

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
  /** all of stdin as text (for `call TOOL -`) */
  readStdin(): string;
}

const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

/** The process's own stdout, stderr and stdin. */
export function processIo(): CliIo {
  return {
    out: (text) => void process.stdout.write(line(text)),
    err: (text) => void process.stderr.write(line(text)),
    style: styleFor(process.stdout),
    errStyle: styleFor(process.stderr),
    errIsTTY: process.stderr.isTTY === true,
    readStdin: () => readFileSync(0, 'utf8'),
  };
}
