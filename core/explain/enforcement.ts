/**
 * What is actually enforced of each plugin's effective permissions, and by
 * what, for `explain` and the summary. A permission that nothing enforces is
 * reported as "declared, not enforced" instead of being listed as if it held:
 * a trusted plugin's code runs in the host's process, so its fsRead, fsWrite,
 * network and env are declarations only, unless its own code checks them and
 * the suite tests that it does (first-party plugins only; see FIRST_PARTY).
 */
import { networkEnforcement, serverEnforcement } from '../mcp-client/enforcement.js';
import type { LoadedPlugin } from '../load/types.js';
import type { Protections } from '../runners/process/spawn.js';
import { probeSandbox } from '../../boundary/launch/probe.js';
import { shellSandboxPlan } from '../../boundary/launch/shell.js';
import type { EnforcedBy, Enforcement, NotEnforced } from './public-types.js';

export type { EnforcedBy, Enforcement };

/** The words for a permission nothing enforces. */
export const NOT_ENFORCED: NotEnforced = 'declared, not enforced';

/**
 * First-party plugins whose own code enforces a permission, and how; each claim is
 * tested in test/security/ (a third-party trusted plugin's claims are never shown).
 */
const FIRST_PARTY: Record<string, Partial<Record<'fs', string>>> = {
  '@toolshed/file': { fs: 'every path is checked by real path against these folders before it is read or written (test/security/first-party-files.test.ts)' },
};

/** What is enforced of `plugin`'s permissions; `protections` are its process tier's, when it has one. */
export function enforcement(plugin: LoadedPlugin, protections: Protections | undefined): Enforcement {
  // An MCP server is held by how it was launched (or runs elsewhere), not by a plugin tier.
  const link = plugin.runner.connection?.();
  if (link) return serverEnforcement(plugin, link);
  const { roots } = plugin.scope;
  const effective = plugin.permissions.effective;
  if (plugin.source.trust === 'untrusted') {
    const how = protections?.mountNamespace ? 'bubblewrap mount namespace and Node permission model' : 'Node permission model';
    return {
      fs: { by: 'sandbox', read: [...roots.read], write: [...roots.write], how },
      network: networkEnforcement(Boolean(effective.network), protections),
      env: { by: 'sandbox', names: [...(effective.env ?? [])], how: 'the child starts with an empty environment plus these' },
    };
  }
  if (plugin.source.builtin && plugin.source.name === TERMINAL) return terminalEnforcement(plugin);
  const own = plugin.source.builtin ? FIRST_PARTY[plugin.source.name] : undefined;
  return {
    fs: own?.fs ? { by: 'plugin', read: [...roots.read], write: [...roots.write], how: own.fs } : NOT_ENFORCED,
    network: NOT_ENFORCED,
    // The worker's process.env holds only these, but the thread shares the host's process (and its /proc/self/environ).
    env: NOT_ENFORCED,
  };
}

/** The first-party terminal plugin, whose commands (not its own code) run in the shell sandbox. */
const TERMINAL = '@toolshed/terminal';

/**
 * What holds a terminal command: the same verdict the plugin reaches in its worker
 * (shell.ts, on this machine's launcher support), with a note when it is not sandboxed.
 */
function terminalEnforcement(plugin: LoadedPlugin): Enforcement {
  const plan = shellSandboxPlan(plugin.scope.options, probeSandbox());
  const { roots } = plugin.scope;
  if (!plan.sandboxed) return { fs: NOT_ENFORCED, network: NOT_ENFORCED, env: NOT_ENFORCED, note: plan.reason };
  const how = `its commands run in bubblewrap (sandbox '${plan.mode}'): nothing else of the host's filesystem, a private /tmp, their own PID namespace`;
  return {
    fs: { by: 'sandbox', read: [...roots.read], write: plan.mode === 'read-only' ? [] : [...roots.write], how },
    network: { by: 'sandbox', allowed: plan.network, how: plan.network ? 'options.network: the host network' : 'own network namespace' },
    env: { by: 'sandbox', names: [...(plugin.permissions.effective.env ?? [])], how: 'commands see only these (and PATH), and no other process\'s /proc' },
    note: `terminal commands run sandboxed (${plan.mode}${plan.network ? ', with network' : ', no network'})`,
  };
}
