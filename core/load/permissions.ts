/**
 * Requested, granted and effective permissions. Trusted plugins get what
 * they request (plus any grant); untrusted plugins get the intersection of
 * what they request and what the operator granted. The effective set of an
 * untrusted plugin becomes its sandbox's grants: absolute paths it may read
 * and write.
 */
import { resolveGrantPaths } from '../../sandbox/process/paths.js';
import type { SandboxGrants } from '../../sandbox/process/process-runner.js';
import type { Permissions, ProtectedPath } from '../plugin.js';
import type { PluginManifest, PluginSource } from '../types.js';
import type { ResolvedConfig } from './config.js';
import type { TaskScope } from '../../sandbox/protocol.js';

const union = (...lists: Array<string[] | undefined>): string[] => [...new Set(lists.flatMap((l) => l ?? []))].sort();
const intersect = (a: string[] | undefined, b: string[] | undefined): string[] => (a ?? []).filter((x) => (b ?? []).includes(x)).sort();

function normalize(p: Permissions | undefined): Required<Permissions> {
  return { network: p?.network ?? false, env: union(p?.env), fsRead: union(p?.fsRead), fsWrite: union(p?.fsWrite), callTools: union(p?.callTools) };
}

/** The three permission sets of one plugin. */
export function effectivePermissions(source: PluginSource, manifest: PluginManifest): { requested: Required<Permissions>; granted: Required<Permissions>; effective: Required<Permissions> } {
  const declaredEnv = union(manifest.permissions.env, ...manifest.tools.map((t) => t.requires.env));
  const requested = normalize({ ...manifest.permissions, env: declaredEnv });
  if (source.trust === 'trusted') {
    const granted = source.grant ? normalize(source.grant) : requested;
    const effective = {
      network: requested.network || granted.network,
      env: union(requested.env, granted.env),
      fsRead: union(requested.fsRead, granted.fsRead),
      fsWrite: union(requested.fsWrite, granted.fsWrite),
      callTools: union(requested.callTools, granted.callTools),
    };
    return { requested, granted, effective };
  }
  const granted = normalize(source.grant);
  return {
    requested,
    granted,
    effective: {
      network: requested.network && granted.network,
      env: intersect(requested.env, granted.env),
      fsRead: intersect(requested.fsRead, granted.fsRead),
      fsWrite: intersect(requested.fsWrite, granted.fsWrite),
      callTools: intersect(requested.callTools, granted.callTools),
    },
  };
}

/**
 * The sandbox grants of an effective permission set: fsRead and fsWrite paths
 * resolved from `baseDir` (the config file's folder, or the host's cwd when
 * the config is an object) to absolute real paths.
 */
export function sandboxGrants(effective: Permissions | undefined, baseDir: string): SandboxGrants {
  return {
    network: effective?.network ?? false,
    fsRead: resolveGrantPaths(effective?.fsRead ?? [], baseDir),
    fsWrite: resolveGrantPaths(effective?.fsWrite ?? [], baseDir),
  };
}

/** A plugin's ctx.roots and ctx.options. */
export type PluginScope = Omit<TaskScope, 'cwd'>;

/**
 * The folders a plugin's code may use (ctx.roots) and its options. Untrusted: exactly
 * its sandbox grants, which the process tier enforces. Trusted: what it requests,
 * relative to the workspace root (the file tools' `'.'` is the root), plus what the
 * operator granted, relative to the config folder; nothing enforces these in the
 * thread tier, so the plugin checks them itself. A write root is also a read root.
 * `protect` (the host's protected paths) stays read-only inside the write roots.
 */
export function pluginScope(
  source: PluginSource,
  permissions: { requested: Permissions; effective: Permissions },
  config: Pick<ResolvedConfig, 'root' | 'dir'>,
  protect: readonly ProtectedPath[] = [],
): PluginScope {
  const options = Object.freeze({ ...source.options });
  if (source.trust === 'untrusted') {
    const grants = sandboxGrants(permissions.effective, config.dir);
    return { roots: { read: union(grants.fsRead, grants.fsWrite), write: union(grants.fsWrite), protect }, options };
  }
  const { requested } = permissions;
  const granted = source.grant ?? {};
  const write = union(resolveGrantPaths(requested.fsWrite ?? [], config.root), resolveGrantPaths(granted.fsWrite ?? [], config.dir));
  const read = union(resolveGrantPaths(requested.fsRead ?? [], config.root), resolveGrantPaths(granted.fsRead ?? [], config.dir), write);
  return { roots: { read, write, protect }, options };
}
