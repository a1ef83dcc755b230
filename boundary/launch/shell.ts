/**
 * The terminal's shell sandbox: which mode a `terminal` command runs in on
 * this machine (from the plugin's `options.sandbox` and what the launcher can
 * use here), and the sandboxed command line for one command, built with the
 * same launcher as the process tier (launch.ts). Pure: the terminal plugin
 * calls it in its worker to run commands, and the host's explain calls it to
 * say what is enforced, so both reach the same verdict.
 */
import path from 'node:path';
import { launchCommand, type Launch, type SandboxSupport } from './launch.js';
import { resolveResources, rlimitPlan, type ResourceLimits, type ResourceProtections } from './resources.js';
import type { FileRoots } from '../plugin.js';

/** `options.sandbox` of @toolshed/terminal. */
export const TERMINAL_SANDBOX_MODES = ['workspace-write', 'read-only', 'off'] as const;

/** How terminal commands run here. */
export type TerminalSandboxPlan =
  /**
   * in bubblewrap: the roots bound read-write (workspace-write) or read-only, system files read-only, private /tmp, own
   * PID namespace, no network unless `network`
   */
  | { sandboxed: true; mode: 'workspace-write' | 'read-only'; network: boolean }
  /** as the host user, with the host's view of everything (`off`, or no bubblewrap and no mode asked for) */
  | { sandboxed: false; reason: string }
  /** a mode was asked for that cannot be had here: the tool is hidden with the reason */
  | { sandboxed: false; unavailable: true; reason: string };

/**
 * The plan for `options` (the terminal plugin's `ctx.options`) on a machine with `support`.
 * Without `sandbox`, commands run in bubblewrap where it works and as today where it
 * does not; an explicit mode that needs bubblewrap is never silently dropped.
 */
export function terminalSandboxPlan(
  options: Readonly<Record<string, unknown>>,
  support: SandboxSupport,
): TerminalSandboxPlan {
  const asked = options.sandbox;
  const network = options.network === true;
  if (asked !== undefined && !(TERMINAL_SANDBOX_MODES as readonly unknown[]).includes(asked)) {
    return {
      sandboxed: false,
      unavailable: true,
      reason:
        `options.sandbox is ${JSON.stringify(asked)}; use one of ` +
        `${TERMINAL_SANDBOX_MODES.map((m) => `'${m}'`).join(', ')}`,
    };
  }
  if (asked === 'off') return { sandboxed: false, reason: "terminal is not sandboxed: options.sandbox is 'off'" };
  const mode = (asked ?? 'workspace-write') as 'workspace-write' | 'read-only';
  if (support.bwrap) return { sandboxed: true, mode, network };
  const why = support.bwrapReason ?? 'bubblewrap (bwrap) is not available';
  if (asked === undefined) return { sandboxed: false, reason: `terminal is not sandboxed here: ${why}` };
  return {
    sandboxed: false,
    unavailable: true,
    reason:
      `options.sandbox '${mode}' needs bubblewrap, which cannot be used here (${why}); install bubblewrap, or ` +
      `set sandbox: 'off' to run commands unsandboxed`,
  };
}

/** The limits of the terminal's commands: its `options.resources` over the defaults (resources.ts). */
export function shellResources(options: Readonly<Record<string, unknown>>): ResourceLimits {
  const asked = options.resources;
  return resolveResources(asked !== null && typeof asked === 'object' ? (asked as Partial<ResourceLimits>) : undefined);
}

/**
 * How an unsandboxed command is limited: rlimits by prlimit in front of the shell (no RLIMIT_NPROC: no user namespace
 * of its own).
 */
export function unsandboxedShellLaunch(
  shell: string,
  args: readonly string[],
  limits: ResourceLimits,
  support: SandboxSupport,
): { command: string; args: string[]; resources: ResourceProtections } {
  const { prefix, protections } = rlimitPlan(limits, support, false);
  const [command, ...rest] = [...prefix, shell, ...args];
  return { command: command!, args: rest, resources: protections };
}

/** One command to run in the sandbox. */
interface ShellCommand {
  /** absolute path of the shell */
  shell: string;
  args: readonly string[];
  /** the working directory; must lie inside the roots */
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** the plugin's folders: the workspace root plus what the operator granted */
  roots: FileRoots;
  /** the node binary the host runs (its installation is bound read-only, so `node` and `npm` work inside) */
  execPath: string;
  /** protected paths inside the write roots, to keep read-only (`protectedMounts(roots.write, roots.protect, cwd)`) */
  readOnlyPaths?: readonly string[];
  /** limits on its processes, memory and file size (`shellResources(options)`) */
  resources?: ResourceLimits;
}

/** The launch of one command under a sandboxed plan. */
export function shellLaunch(
  plan: Extract<TerminalSandboxPlan, { sandboxed: true }>,
  command: ShellCommand,
  support: SandboxSupport,
): Launch {
  const write = plan.mode === 'workspace-write' ? [...command.roots.write] : [];
  // The node installation (…/bin/node → …): inside /usr it is already bound with the system's files.
  const nodePrefix = path.dirname(path.dirname(command.execPath));
  const read = [...command.roots.read, ...(nodePrefix === '/usr' || nodePrefix === '/' ? [] : [nodePrefix])];
  return launchCommand(
    {
      command: command.shell,
      args: command.args,
      readPaths: read,
      writePaths: write,
      readOnlyPaths: write.length ? (command.readOnlyPaths ?? []) : [],
      network: plan.network,
      env: command.env,
      cwd: command.cwd,
      runtime: 'system',
      ...(command.resources ? { resources: command.resources } : {}),
    },
    support,
  );
}
