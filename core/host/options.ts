/** The options of `createToolHost`. */
import type { ToolshedConfig } from '../config/config.js';
import type { Clock } from '../expose/check-cache.js';
import type { SchemaRewriter } from '../expose/rewriter.js';
import type { Approver } from '../call/approval.js';

/** Options of `createToolHost`. */
export interface ToolHostOptions {
  /** where config search starts and relative paths resolve (default: `root`, else process.cwd()) */
  cwd?: string;
  /**
   * The workspace root: ctx.cwd of every handler and check, where file and terminal tools
   * work. Overrides the config's `root`; default the config's `root`, else `cwd`.
   */
  root?: string;
  /** a config object, or a path to a config file; omitted = search from cwd */
  config?: ToolshedConfig | string;
  /** the environment checks see and grants come from (default process.env) */
  env?: Record<string, string | undefined>;
  /** injectable time source for check TTLs (default Date.now) */
  clock?: Clock;
  /** extra definitions steps, run before the built-in ones (execute_code's schema rebuild is one) */
  rewriters?: SchemaRewriter[];
  /** approves calls that need approval (config `approve`); a call's own `onApproval` comes first */
  onApproval?: Approver;
  /** override parts of the config after loading (CLI --enable/--disable) */
  overrides?: Partial<Pick<ToolshedConfig, 'enable' | 'disable'>>;
  /**
   * Accept a config file that differs from the one last accepted, and record it, instead of
   * failing with CONFIG_UNTRUSTED (CI, containers: no one to ask). The env var
   * TOOLSHED_TRUST_CONFIG=1 does the same. See docs/configuration.md#config-trust.
   */
  trustConfig?: boolean;
  /** one-line notes for the person starting the host, such as config trust on first use (the CLI prints them on stderr) */
  onNotice?: (message: string) => void;
}
