// @ts-check
import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
// toolshed's own launcher, the same one the process tier uses.
// toolshed's toolkit, `toolshed/toolkit` (docs/plugins.md, "The toolkit"), by the path of its file in the
// package: this plugin ships inside toolshed under a package.json of its own, where Node does not resolve
// the name 'toolshed' (self-reference stops at the nearest package.json). A third-party plugin imports
// 'toolshed/toolkit'.
import {
  probeSandbox,
  protectedMounts,
  shellLaunch,
  shellResources,
  terminalSandboxPlan,
  unsandboxedShellLaunch,
} from '../../../dist/sandbox/toolkit.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */
/** @typedef {import('toolshed/toolkit').TerminalSandboxPlan} TerminalSandboxPlan */

/** How this call's commands run: the plugin's `options.sandbox` on this machine. */
export function sandboxPlan(/** @type {ToolContext} */ ctx) {
  return terminalSandboxPlan(ctx.options ?? {}, probeSandbox());
}

/**
 * The limits of this call's commands: `options.resources` (the host puts its entry's `resources` there) over the
 * defaults.
 */
export function commandLimits(/** @type {ToolContext} */ ctx) {
  return shellResources(ctx.options ?? {});
}

/**
 * The program that runs `command` unsandboxed: bash behind prlimit where it works
 * (memory and file size; no process rlimit without a user namespace of its own).
 * @param {string} command
 * @param {Record<string, string>} env
 */
export function unsandboxedLaunch(/** @type {ToolContext} */ ctx, command, env) {
  const launch = unsandboxedShellLaunch(findBash(env.PATH), ['-c', command], commandLimits(ctx), probeSandbox());
  return { command: launch.command, args: launch.args };
}

/** The availability check: an explicit mode that cannot be had here hides the tool with the reason. */
export function checkSandbox(/** @type {ToolContext} */ ctx) {
  const plan = sandboxPlan(ctx);
  return 'unavailable' in plan ? { ok: false, reason: plan.reason } : true;
}

/** The folders the command may use: the host's roots, or the working directory alone for a hand-made ctx. */
function rootsOf(/** @type {ToolContext} */ ctx) {
  const base = ctx.cwd ?? process.cwd();
  return ctx.roots ?? { read: [base], write: [base] };
}

/** The absolute path of bash on the command's PATH (bwrap needs one). */
function findBash(/** @type {string | undefined} */ searchPath) {
  for (const dir of (searchPath ?? '').split(':')) {
    const candidate = path.join(dir || '.', 'bash');
    if (path.isAbsolute(candidate) && existsSync(candidate)) return candidate;
  }
  return '/bin/bash';
}

/**
 * The program that runs `command` in `cwd` under `plan`: undefined when unsandboxed
 * (plain `bash -c`), else the bubblewrap command line. A working directory outside the
 * folders the sandbox holds is refused, since the command could not see it.
 * @param {Extract<TerminalSandboxPlan, { sandboxed: true }>} plan
 * @param {ToolContext} ctx
 * @param {string} command
 * @param {string} cwd
 * @param {Record<string, string>} env
 * @param {Map<string, import('toolshed/toolkit').ProtectedSeen>} [found] the protected names in the write roots, as
 *        `findProtected` just saw them
 */
export async function sandboxedLaunch(plan, ctx, command, cwd, env, found) {
  const roots = rootsOf(ctx);
  const real = await realpath(cwd);
  const inside = roots.read.some((root) => {
    const rel = path.relative(root, real);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
  if (!inside) {
    const error = new Error(
      `Permission denied: cwd ${cwd} is outside the folders the sandboxed terminal can see (` +
        `${roots.read.join(', ')}). Run commands inside the workspace.`,
    );
    throw Object.assign(error, { code: 'PERMISSION_DENIED' });
  }
  // What the host protects (config files, .git but what git add/commit write, .npmrc, plugin code…) stays read-only
  // inside the writable roots.
  const readOnlyPaths = protectedMounts(roots.write, roots.protect, real, found);
  const launch = shellLaunch(
    plan,
    {
      shell: findBash(env.PATH),
      args: ['-c', command],
      cwd: real,
      env,
      roots,
      execPath: await realpath(process.execPath),
      readOnlyPaths,
      resources: commandLimits(ctx),
    },
    probeSandbox(),
  );
  return { command: launch.command, args: launch.args };
}
