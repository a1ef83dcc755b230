/**
 * What is enforced of an MCP server's grants, for `explain`: what its launch
 * really held it to (mount namespace and permission model for files, a
 * network namespace, the environment it was started with), or that its code
 * runs on another machine. It imports nothing of the SDK, so explain can call
 * it in any host.
 */
import type { Enforcement, NOT_ENFORCED as NotEnforced } from '../explain/enforcement.js';
import type { LoadedPlugin } from '../load/types.js';
import type { ConnectionReport } from './report.js';

// core/explain/enforcement.ts calls this module; a value import back would make a cycle, so the words are repeated.
const NOT_ENFORCED: typeof NotEnforced = 'declared, not enforced';

/** The enforcement of a server's grants, from its connection report. */
export function serverEnforcement(plugin: LoadedPlugin, report: ConnectionReport): Enforcement {
  const { roots } = plugin.scope;
  if (report.transport === 'http') {
    const how = 'its code runs on another machine, reached only at its URL';
    return { fs: { by: 'host', read: [], write: [], how }, network: { by: 'host', allowed: true, how }, env: { by: 'host', names: [], how } };
  }
  const x = report.protections;
  if (!x || x.env === 'desktop default') return { fs: NOT_ENFORCED, network: NOT_ENFORCED, env: NOT_ENFORCED };
  const held = [x.mountNamespace ? 'bubblewrap mount namespace' : '', x.permissionModel ? 'Node permission model' : ''].filter(Boolean);
  const granted = plugin.permissions.effective;
  return {
    fs: held.length ? { by: 'sandbox', read: [...roots.read], write: [...roots.write], how: held.join(' and ') } : NOT_ENFORCED,
    network: networkEnforcement(Boolean(granted.network), x),
    env: { by: 'host', names: [...(granted.env ?? [])], how: "started with only these, its entry's env and PATH" },
  };
}

/**
 * The network enforcement of a sandboxed process: allowed with the grant; without it, held by
 * its own network namespace, Node's permission model (Node 25+, which refuses sockets, DNS and
 * fetch without `--allow-net`), or both; nothing where neither is in force.
 */
export function networkEnforcement(granted: boolean, x: { netNamespace: boolean; netPermission?: boolean } | undefined): Enforcement['network'] {
  if (granted) return { by: 'sandbox', allowed: true, how: 'network granted: no network namespace' };
  const held = [x?.netNamespace ? 'own network namespace' : '', x?.netPermission ? "Node's permission model (no --allow-net)" : ''].filter(Boolean);
  return held.length ? { by: 'sandbox', allowed: false, how: held.join(' and ') } : NOT_ENFORCED;
}
