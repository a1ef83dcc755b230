/**
 * The "model as an attacker" part of `explain`: which folders the model's tools can
 * write, what stays read-only inside them (protected paths), and which protections are
 * not in force here and why — never hidden (docs/security.md, "The model as an attacker").
 */
import { probeSandbox } from '../../boundary/launch/probe.js';
import { shellLaunch, shellResources, shellSandboxPlan, unsandboxedShellLaunch } from '../../boundary/launch/shell.js';
import { weakLimits, type ResourceProtections } from '../../boundary/launch/resources.js';
import { isInside } from '../../boundary/launch/paths.js';
import type { ProtectedPath } from '../../boundary/plugin.js';
import type { PluginLoadResult } from '../load/types.js';
import type { ProtectionReport } from './public-types.js';

export type { ProtectionReport };

/** The limits a terminal command gets here, as its plugin's options and this machine decide. */
function terminalResources(options: Readonly<Record<string, unknown>>): ResourceProtections | undefined {
  const support = probeSandbox();
  const plan = shellSandboxPlan(options, support);
  const limits = shellResources(options);
  if ('unavailable' in plan) return undefined;
  if (!plan.sandboxed) return unsandboxedShellLaunch('/bin/bash', [], limits, support).resources;
  return shellLaunch(plan, { shell: '/bin/bash', args: [], cwd: '/', env: {}, roots: { read: [], write: [] }, execPath: process.execPath, resources: limits }, support).protections.resources;
}

/** The resource limits of every sandboxed child among `plugins`, and a line for each limit the kernel does not hold. */
function resourceReport(plugins: readonly PluginLoadResult[], notInForce: string[]): Record<string, ResourceProtections> {
  const out: Record<string, ResourceProtections> = {};
  for (const p of plugins) {
    if (p.status !== 'loaded') continue;
    const name = p.source.name;
    const resources =
      p.source.builtin && name === '@toolshed/terminal'
        ? terminalResources(p.scope.options)
        : p.source.trust === 'untrusted'
          ? (p.runner.connection?.()?.protections ?? p.runner.protections())?.resources
          : undefined;
    if (!resources) continue;
    out[name] = resources;
    notInForce.push(...weakLimits(name, resources));
  }
  return out;
}

/** The first-party plugins that write where the model says. */
const MODEL_PATHS = new Set(['@toolshed/file', '@toolshed/terminal']);

/** The report for the loaded `plugins` and the host's `protect` list. */
export function protectionReport(plugins: readonly PluginLoadResult[], protect: readonly ProtectedPath[]): ProtectionReport {
  const writable = new Set<string>();
  const notInForce: string[] = [];
  for (const p of plugins) {
    if (p.status !== 'loaded' || !p.scope.roots.write.length) continue;
    // First-party plugins other than these two write only files of their own, at names the model does not choose.
    if (p.source.builtin && !MODEL_PATHS.has(p.source.name)) continue;
    for (const root of p.scope.roots.write) writable.add(root);
    const name = p.source.name;
    if (p.source.builtin && name === '@toolshed/terminal') {
      const plan = shellSandboxPlan(p.scope.options, probeSandbox());
      if (!plan.sandboxed) notInForce.push(`terminal: ${plan.reason}; its commands can change protected paths (config files, .git/hooks, .git/config, plugin code)`);
      continue;
    }
    if (p.source.builtin && name === '@toolshed/file') {
      if (process.platform !== 'linux') notInForce.push(`file tools: without /proc/self/fd (${process.platform}) a path is checked and then opened again, so a link swapped in between is not caught`);
      continue;
    }
    const link = p.runner.connection?.();
    const protections = link ? link.protections : p.runner.protections();
    if (p.source.trust === 'trusted') notInForce.push(`${name} (trusted, may write ${p.scope.roots.write.join(', ')}): its code runs unsandboxed, so nothing holds the protected paths for it`);
    else if (!protections || !('mountNamespace' in protections) || !protections.mountNamespace) notInForce.push(`${name}: no mount namespace here, so protected paths inside its write grant are not read-only to it`);
  }
  const roots = [...writable].sort();
  const shown = protect.filter((e) => e.kind === 'name' || roots.some((root) => isInside(e.value, root) || isInside(root, e.value)));
  const resources = resourceReport(plugins, notInForce);
  return { writable: roots, protected: shown, notInForce, resources };
}
