/**
 * What a command's handler receives: the parsed flags and its positional arguments. Apart from
 * commands.ts (the table, which imports each handler when it runs) so a handler's types do not
 * import the table back.
 */
import type { CliIo } from './io.js';

/** The parsed flags of a command line (commander turns `--kebab-case` into camelCase). */
export interface CliValues {
  config?: string;
  root?: string;
  enable?: string;
  disable?: string;
  json?: boolean;
  strict?: boolean;
  format?: string;
  http?: string;
  allowOrigin?: string;
  tokenEnv?: string;
  publicUrl?: string;
  replica?: string;
  stateless?: boolean;
  ops?: boolean;
  watch?: boolean;
  watchWorkspace?: boolean;
  force?: boolean;
  yes?: boolean;
  fromClaudeDesktop?: string;
  trustConfig?: boolean;
  all?: boolean;
  status?: boolean;
  logout?: boolean;
  import?: string;
  /** false with --no-browser */
  browser?: boolean;
  as?: string;
  search?: string;
  ui?: boolean;
  quiet?: boolean;
  open?: boolean;
}

/** What a command's handler receives. */
export interface CommandContext {
  /** positional arguments, in the order the command declares them */
  args: Array<string | undefined>;
  values: CliValues;
  io: CliIo;
}
