/**
 * How the CLI decorates text for the terminal it writes to: colour only on a
 * TTY that supports it (NO_COLOR turns it off, FORCE_COLOR on, even into a
 * pipe), and ASCII stand-ins for ✓ ✗ → · — … when the locale is not UTF-8.
 * Colouring itself is picocolors; this file only decides whether.
 */
import pc from 'picocolors';

/** The decorations the renderers use. */
export interface Style {
  ok: string;
  fail: string;
  warn: string;
  arrow: string;
  dot: string;
  dash: string;
  ellipsis: string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

type Env = Record<string, string | undefined>;

/** Whether to colour output written to `stream` (NO_COLOR and FORCE_COLOR as no-color.org and Node define them). */
export function colourEnabled(stream: { isTTY?: boolean; hasColors?(): boolean }, env: Env = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  // Node's own check: TERM, colour depth, and the same variables for a TTY.
  return stream.isTTY === true && typeof stream.hasColors === 'function' && stream.hasColors();
}

/**
 * Whether the terminal takes UTF-8. The locale decides where one is set
 * (LC_ALL, then LC_CTYPE, then LANG; `C`/`POSIX` are not UTF-8); without one,
 * everything but the Linux console is assumed to (as is-unicode-supported does).
 */
function unicodeEnabled(env: Env, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'win32') return Boolean(env.WT_SESSION || env.TERM_PROGRAM === 'vscode' || env.ConEmuTask);
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG;
  if (locale) return /utf-?8/i.test(locale);
  return env.TERM !== 'linux';
}

/** A style for `stream` under `env`. */
export function styleFor(stream: { isTTY?: boolean; hasColors?(): boolean }, env: Env = process.env): Style {
  return makeStyle(colourEnabled(stream, env), unicodeEnabled(env));
}

/** A style with colour and Unicode symbols each on or off. */
function makeStyle(colour: boolean, unicode: boolean): Style {
  const c = pc.createColors(colour);
  return {
    ok: unicode ? '✓' : '+',
    fail: unicode ? '✗' : 'x',
    warn: '!',
    arrow: unicode ? '→' : '->',
    dot: unicode ? '·' : '-',
    dash: unicode ? '—' : '-',
    ellipsis: unicode ? '…' : '...',
    green: c.green,
    red: c.red,
    yellow: c.yellow,
    dim: c.dim,
    bold: c.bold,
  };
}

/** Plain Unicode, no colour: what the library's renderers use by default. */
export const PLAIN: Style = makeStyle(false, true);
