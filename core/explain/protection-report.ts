/**
 * The "model as an attacker" part of `explain`: which folders the model's tools can
 * write, what stays read-only inside them (protected paths), and which protections are
 * not in force here and why — never hidden (docs/security.md, "The model as an attacker").
 */
import { defaultToolset } from '../load/discovery.js';
import {
  shellLaunch,
  shellResources,
  terminalSandboxPlan,
  unsandboxedShellLaunch,
} from '../../boundary/launch/shell.js';
import { weakLimits, type ResourceProtections } from '../../boundary/launch/resources.js';
import { isInside } from '../../boundary/launch/paths.js';
import type { ProtectedPath } from '../../boundary/plugin-api.js';
import type { SandboxSupport } from '../../boundary/launch/launch.js';
import type { PluginLoadResult } from '../load/types.js';
import type { ProtectionReport } from './public-types.js';

/**
 * The limits a command run in the shell sandbox (the terminal's) gets here, as its plugin's options and this machine
 * decide.
 */
function commandResources(
  options: Readonly<Record<string, unknown>>,
  support: SandboxSupport,
): ResourceProtections | undefined {
  const plan = terminalSandboxPlan(options, support);
  const limits = shellResources(options);
  if ('unavailable' in plan) return undefined;
  if (!plan.sandboxed) return unsandboxedShellLaunch('/bin/bash', [], limits, support).resources;
  return shellLaunch(
    plan,
    {
      shell: '/bin/bash',
      args: [],
      cwd: '/',
      env: {},
      roots: { read: [], write: [] },
      execPath: process.execPath,
      resources: limits,
    },
    support,
  ).protections.resources;
}

/** The resource limits of every sandboxed child among `plugins`, and a line for each limit the kernel does not hold. */
function resourceReport(
  plugins: readonly PluginLoadResult[],
  notInForce: string[],
  support: SandboxSupport | undefined,
): Record<string, ResourceProtections> {
  const out: Record<string, ResourceProtections> = {};
  for (const p of plugins) {
    if (p.status !== 'loaded') continue;
    const name = p.source.name;
    const resources =
      p.source.firstParty?.commands === 'shell-sandbox' && support
        ? commandResources(p.scope.options, support)
        : p.source.trust === 'untrusted'
          ? (p.runner.connection?.()?.protections ?? p.runner.protections())?.resources
          : undefined;
    if (!resources) continue;
    out[name] = resources;
    notInForce.push(...weakLimits(name, resources));
  }
  return out;
}

/**
 * The report for the loaded `plugins` and the host's `protect` list, on this machine's sandbox `support` (needed when a
 * plugin's commands run in the shell sandbox).
 */
export function protectionReport(
  plugins: readonly PluginLoadResult[],
  protect: readonly ProtectedPath[],
  support: SandboxSupport | undefined,
): ProtectionReport {
  const writable = new Set<string>();
  const notInForce: string[] = [];
  for (const p of plugins) {
    if (p.status !== 'loaded' || !p.scope.roots.write.length) continue;
    // First-party plugins that do not declare they write where the model says write only files of their own, at names
    // the model does not choose.
    const claims = p.source.firstParty;
    if (p.source.builtin && !claims?.modelPaths) continue;
    for (const root of p.scope.roots.write) writable.add(root);
    const name = p.source.name;
    if (claims?.commands === 'shell-sandbox' && support) {
      const plan = terminalSandboxPlan(p.scope.options, support);
      if (!plan.sandboxed)
        notInForce.push(
          `${defaultToolset(p.source)}: ${plan.reason}; its commands can change existing protected paths ` +
            `(config files, .git, .npmrc, plugin code), and a protected name one creates is refused only after ` +
            `the command ends`,
        );
      continue;
    }
    if (claims?.enforces?.fs) {
      if (process.platform !== 'linux')
        notInForce.push(
          `${defaultToolset(p.source)} tools: without /proc/self/fd (${process.platform}) a path is checked ` +
            `and then opened again, so a link swapped in between is not caught`,
        );
      continue;
    }
    const link = p.runner.connection?.();
    const protections = link ? link.protections : p.runner.protections();
    if (p.source.trust === 'trusted')
      notInForce.push(
        `${name} (trusted, may write ${p.scope.roots.write.join(', ')}): its code runs unsandboxed, so nothing ` +
          `holds the protected paths for it`,
      );
    else if (!protections || !('mountNamespace' in protections) || !protections.mountNamespace)
      notInForce.push(
        `${name}: no mount namespace here, so protected paths inside its write grant are not read-only to it`,
      );
    // A mount needs something to mount over; only the terminal compares before and after.
    else
      notInForce.push(
        `${name}: a protected name that does not exist yet inside its write grant (.npmrc, a .git file, ` +
          `node_modules/.bin) is not held: it can create one`,
      );
  }
  const roots = [...writable].sort();
  const shown = protect.filter(
    (e) => e.kind === 'name' || roots.some((root) => isInside(e.value, root) || isInside(root, e.value)),
  );
  const resources = resourceReport(plugins, notInForce, support);
  return { writable: roots, protected: shown, notInForce, resources };
}
