/**
 * `toolshed/toolkit`: the parts of toolshed a toolset package may use besides the plugin API
 * (`toolshed/plugin`), for tools that run commands, guard files, keep state or run code. The
 * first-party toolsets use exactly these and nothing else of toolshed (docs/plugins.md, "The toolkit").
 * They run in the plugin's own worker or child, like the rest of its code.
 */
import { TERMINAL_SANDBOX_MODES, terminalSandboxPlan } from '../boundary/launch/shell.js';
import type { CodeResult, RunCodeOptions } from './code/runtime.js';

// The sandbox launcher: run a shell command in a bubblewrap mount namespace that holds the
// workspace (read-only or writable) with its protected paths mounted read-only, under resource limits.
export { probeSandbox } from '../boundary/launch/probe.js';
export {
  terminalSandboxPlan,
  shellResources,
  shellLaunch,
  unsandboxedShellLaunch,
  TERMINAL_SANDBOX_MODES,
  type TerminalSandboxPlan,
} from '../boundary/launch/shell.js';
export {
  protectedMounts,
  findProtected,
  refuseCreated,
  type ProtectedSeen,
  type ProtectedChange,
} from '../boundary/launch/protected-mounts.js';
export { overLimitMessage, SIGXFSZ_EXIT, type ResourceLimits } from '../boundary/launch/resources.js';
export { watchResources } from '../boundary/launch/resource-watch.js';

/**
 * The old name of `terminalSandboxPlan`.
 * @deprecated use `terminalSandboxPlan`; removed in toolshed 2
 */
export const shellSandboxPlan = terminalSandboxPlan;
/**
 * The old name of `TERMINAL_SANDBOX_MODES`.
 * @deprecated use `TERMINAL_SANDBOX_MODES`; removed in toolshed 2
 */
export const SHELL_SANDBOX_MODES = TERMINAL_SANDBOX_MODES;

// The protected-path matcher: whether a path lies under one of ctx.roots.protect, and the message to refuse it with.
export { protectedBy, protectedMessage } from '../boundary/protected.js';

// Private state files: a folder only this user may read, and files written whole or not at all.
export { ensurePrivateDir, readPrivateFile, writePrivateFile } from '../boundary/private-dir.js';

// The execute_code runtime: model-written JavaScript in a QuickJS context with only `tools` and `console`.
export type { CodeResult, RunCodeOptions } from './code/runtime.js';

let runtime: Promise<typeof import('./code/runtime.js')> | undefined;

/**
 * Runs model-written JavaScript in a fresh QuickJS runtime with `tools` and `console` installed; the
 * runtime (a WebAssembly engine) loads on the first call. Never throws for anything the script does.
 * @example
 * const { tools, limits, searchTool } = await ctx.sandboxTools();
 * return runCode({ code, tools, callTool, signal: ctx.signal, ...limits, ...(searchTool ? { searchTool } : {}) });
 */
export async function runCode(options: RunCodeOptions): Promise<CodeResult> {
  runtime ??= import('./code/runtime.js');
  return (await runtime).runCode(options);
}
