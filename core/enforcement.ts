/**
 * What is actually enforced of each plugin's effective permissions, and by
 * what, for `explain` and the summary. A permission that nothing enforces is
 * reported as "declared, not enforced" instead of being listed as if it held:
 * a trusted plugin's code runs in the host's process, so its fsRead, fsWrite,
 * network and env are declarations only, unless its own code checks them and
 * the suite tests that it does (first-party plugins only; see FIRST_PARTY).
 */
import { serverEnforcement } from './mcp-servers/enforcement.js';
import type { LoadedPlugin } from './types.js';
import type { Protections } from '../sandbox/process/spawn.js';

/** The words for a permission nothing enforces. */
export const NOT_ENFORCED = 'declared, not enforced';

/** Who enforces a permission: the process tier's sandbox, the host, or the first-party plugin's own tested code. */
export type EnforcedBy = 'sandbox' | 'host' | 'plugin';

/** What is enforced of one plugin's permissions. */
export interface Enforcement {
  /** the folders its file access is held to (real paths) */
  fs: { by: EnforcedBy; read: string[]; write: string[]; how: string } | typeof NOT_ENFORCED;
  /** whether it can reach the network */
  network: { by: EnforcedBy; allowed: boolean; how: string } | typeof NOT_ENFORCED;
  /** the only environment variables its code can see */
  env: { by: EnforcedBy; names: string[]; how: string } | typeof NOT_ENFORCED;
}

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
    const network = effective.network
      ? { by: 'sandbox' as const, allowed: true, how: 'network granted: no network namespace' }
      : protections?.netNamespace
        ? { by: 'sandbox' as const, allowed: false, how: 'own network namespace' }
        : NOT_ENFORCED;
    return {
      fs: { by: 'sandbox', read: [...roots.read], write: [...roots.write], how },
      network,
      env: { by: 'sandbox', names: [...(effective.env ?? [])], how: 'the child starts with an empty environment plus these' },
    };
  }
  const own = plugin.source.builtin ? FIRST_PARTY[plugin.source.name] : undefined;
  return {
    fs: own?.fs ? { by: 'plugin', read: [...roots.read], write: [...roots.write], how: own.fs } : NOT_ENFORCED,
    network: NOT_ENFORCED,
    // The worker's process.env holds only these, but the thread shares the host's process (and its /proc/self/environ).
    env: NOT_ENFORCED,
  };
}
