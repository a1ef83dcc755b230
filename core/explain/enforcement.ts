/**
 * What is actually enforced of each plugin's effective permissions, and by
 * what, for `explain` and the summary. A permission that nothing enforces is
 * reported as "declared, not enforced" instead of being listed as if it held:
 * a trusted plugin's code runs in the host's process, so its fsRead, fsWrite,
 * network and env are declarations only, unless its own code checks them and
 * the suite tests that it does (first-party plugins only: the claims their
 * package.json declares, `PluginSource.firstParty`). An MCP server is held by
 * how it was launched, read from its connection report.
 */
import { defaultToolset } from '../load/discovery.js';
import type { LoadedPlugin } from '../load/types.js';
import type { Protections } from '../runners/protections.js';
import type { ConnectionReport } from '../runners/connection-report.js';
import { terminalSandboxPlan } from '../../boundary/launch/shell.js';
import type { SandboxSupport } from '../../boundary/launch/launch.js';
import type { Enforcement, NotEnforced } from './public-types.js';

export type { Enforcement };

/** The words for a permission nothing enforces. */
export const NOT_ENFORCED: NotEnforced = 'declared, not enforced';

/**
 * What is enforced of `plugin`'s permissions; `protections` are its process tier's, when it has one,
 * and `support` what this machine's sandbox launcher can do (probed by the host).
 */
export function enforcement(
  plugin: LoadedPlugin,
  protections: Protections | undefined,
  support: SandboxSupport | undefined,
): Enforcement {
  // An MCP server is held by how it was launched (or runs elsewhere), not by a plugin tier.
  const link = plugin.runner.connection?.();
  if (link) return serverEnforcement(plugin, link);
  const { roots } = plugin.scope;
  const effective = plugin.permissions.effective;
  if (plugin.source.trust === 'untrusted') {
    const how = protections?.mountNamespace
      ? 'bubblewrap mount namespace and Node permission model'
      : 'Node permission model';
    return {
      fs: { by: 'sandbox', read: [...roots.read], write: [...roots.write], how },
      network: networkEnforcement(Boolean(effective.network), protections),
      env: {
        by: 'sandbox',
        names: [...(effective.env ?? [])],
        how: 'the child starts with an empty environment plus these',
      },
    };
  }
  const claims = plugin.source.firstParty;
  if (claims?.commands === 'shell-sandbox' && support) return commandEnforcement(plugin, support);
  const fs = claims?.enforces?.fs;
  return {
    fs: fs ? { by: 'plugin', read: [...roots.read], write: [...roots.write], how: fs } : NOT_ENFORCED,
    network: NOT_ENFORCED,
    // The worker's process.env holds only these, but the thread shares the host's process (and its /proc/self/environ).
    env: NOT_ENFORCED,
  };
}

/**
 * What holds a first-party plugin's commands (the terminal's; not its own code): the same verdict
 * the plugin reaches in its worker (shell.ts, on this machine's launcher support), with a note
 * when they are not sandboxed.
 */
function commandEnforcement(plugin: LoadedPlugin, support: SandboxSupport): Enforcement {
  const plan = terminalSandboxPlan(plugin.scope.options, support);
  const { roots } = plugin.scope;
  if (!plan.sandboxed) return { fs: NOT_ENFORCED, network: NOT_ENFORCED, env: NOT_ENFORCED, note: plan.reason };
  const how =
    `its commands run in bubblewrap (sandbox '${plan.mode}'): nothing else of the host's filesystem, a private ` +
    `/tmp, their own PID namespace`;
  return {
    fs: { by: 'sandbox', read: [...roots.read], write: plan.mode === 'read-only' ? [] : [...roots.write], how },
    network: {
      by: 'sandbox',
      allowed: plan.network,
      how: plan.network ? 'options.network: the host network' : 'own network namespace',
    },
    env: {
      by: 'sandbox',
      names: [...(plugin.permissions.effective.env ?? [])],
      how: "commands see only these (and PATH), and no other process's /proc",
    },
    note:
      `${defaultToolset(plugin.source)} commands run sandboxed (${plan.mode}` +
      `${plan.network ? ', with network' : ', no network'})`,
  };
}

/** The enforcement of a server's grants, from its connection report. */
function serverEnforcement(plugin: LoadedPlugin, report: ConnectionReport): Enforcement {
  const { roots } = plugin.scope;
  if (report.transport === 'http') {
    const how = 'its code runs on another machine, reached only at its URL';
    return {
      fs: { by: 'host', read: [], write: [], how },
      network: { by: 'host', allowed: true, how },
      env: { by: 'host', names: [], how },
    };
  }
  const x = report.protections;
  if (!x || x.env === 'desktop default') return { fs: NOT_ENFORCED, network: NOT_ENFORCED, env: NOT_ENFORCED };
  const held = [
    x.mountNamespace ? 'bubblewrap mount namespace' : '',
    x.permissionModel ? 'Node permission model' : '',
  ].filter(Boolean);
  const granted = plugin.permissions.effective;
  return {
    fs: held.length
      ? { by: 'sandbox', read: [...roots.read], write: [...roots.write], how: held.join(' and ') }
      : NOT_ENFORCED,
    network: networkEnforcement(Boolean(granted.network), x),
    env: { by: 'host', names: [...(granted.env ?? [])], how: "started with only these, its entry's env and PATH" },
  };
}

/**
 * The network enforcement of a sandboxed process: allowed with the grant; without it, held by
 * its own network namespace, Node's permission model (Node 25+, which refuses sockets, DNS and
 * fetch without `--allow-net`), or both; nothing where neither is in force.
 */
function networkEnforcement(
  granted: boolean,
  x: { netNamespace: boolean; netPermission?: boolean } | undefined,
): Enforcement['network'] {
  if (granted) return { by: 'sandbox', allowed: true, how: 'network granted: no network namespace' };
  const held = [
    x?.netNamespace ? 'own network namespace' : '',
    x?.netPermission ? "Node's permission model (no --allow-net)" : '',
  ].filter(Boolean);
  return held.length ? { by: 'sandbox', allowed: false, how: held.join(' and ') } : NOT_ENFORCED;
}
