/**
 * Requested, granted and effective permissions. Trusted plugins get what
 * they request (plus any grant); untrusted plugins get the intersection of
 * what they request and what the operator granted. The effective set of an
 * untrusted plugin becomes its sandbox's grants: absolute paths it may read
 * and write.
 */
import { isInside, resolveGrantPaths } from '../../boundary/launch/paths.js';
import type { SandboxGrants } from '../runners/process/process-runner.js';
import type { FolderRequest, Grant, Permissions, ProtectedPath } from '../../boundary/plugin-api.js';
import type { PluginManifest, PluginSource } from './types.js';
import type { ResolvedConfig } from '../config/config.js';
import type { TaskScope } from '../../boundary/protocol.js';

const union = (...lists: Array<string[] | undefined>): string[] => [...new Set(lists.flatMap((l) => l ?? []))].sort();
const intersect = (a: string[] | undefined, b: string[] | undefined): string[] =>
  (a ?? []).filter((x) => (b ?? []).includes(x)).sort();

/**
 * A permission set with every key present; `folders` holds paths (granted, effective) or is empty (requested: see
 * `Permissions.folders`).
 */
type Complete = Required<Omit<Permissions, 'folders'>> & { folders: Record<string, string> };

/** A plugin's requested, granted and effective permissions, and the grants that match no request. */
interface PermissionSets {
  requested: Required<Omit<Permissions, 'folders'>> & Pick<Permissions, 'folders'>;
  granted: Complete;
  effective: Complete;
  /**
   * untrusted only: each grant that matches nothing the plugin requests, in words (the summary, `explain` and
   * `--strict` report them)
   */
  unmatched: string[];
}

function normalize(p: Permissions | Grant | undefined): Required<Omit<Permissions, 'folders'>> {
  return {
    network: p?.network ?? false,
    env: union(p?.env),
    fsRead: union(p?.fsRead),
    fsWrite: union(p?.fsWrite),
    callTools: union(p?.callTools),
  };
}

/**
 * The paths of `requested` and `granted` that overlap, compared as resolved paths (both relative
 * to `baseDir`, the config file's folder): a grant inside a requested folder (or the same folder,
 * however spelled: `./notes`, `notes`, `notes/`) is effective as the operator wrote it; a request
 * inside a granted folder is effective as the plugin wrote it (the narrower of the two wins).
 * Also returns the grants that overlap no request.
 */
function overlap(
  requested: string[],
  granted: string[],
  baseDir: string,
): { effective: string[]; unmatched: string[] } {
  const req = requested.map((p) => ({ p, at: resolveGrantPaths([p], baseDir)[0]! }));
  const effective = new Set<string>();
  const unmatched: string[] = [];
  for (const g of granted) {
    const at = resolveGrantPaths([g], baseDir)[0]!;
    let matched = false;
    for (const r of req) {
      if (isInside(at, r.at)) effective.add(g);
      else if (isInside(r.at, at)) effective.add(r.p);
      else continue;
      matched = true;
    }
    if (!matched) unmatched.push(g);
  }
  return { effective: [...effective].sort(), unmatched };
}

/** Grants an untrusted plugin does not request, in words. */
function unmatchedGrants(
  requested: PermissionSets['requested'],
  granted: Complete,
  paths: { fsRead: string[]; fsWrite: string[] },
): string[] {
  const out: string[] = [];
  const asked = (list: string[]) => (list.length ? `it requests ${list.join(', ')}` : 'it requests none');
  for (const key of ['fsRead', 'fsWrite'] as const) {
    for (const p of paths[key])
      out.push(
        `grant.${key} '${p}' matches no folder the plugin requests in ${key} (${asked(requested[key])}; paths ` +
          `of both resolve from the config file's folder), so it has no effect`,
      );
  }
  if (granted.network && !requested.network)
    out.push('grant.network is true, but the plugin does not request network access, so it has no effect');
  for (const key of ['env', 'callTools'] as const) {
    const extra = granted[key].filter((x) => !requested[key].includes(x));
    if (extra.length)
      out.push(
        `grant.${key} ${extra.map((x) => `'${x}'`).join(', ')}: the plugin does not request ` +
          `${extra.length === 1 ? 'it' : 'them'} (${asked(requested[key])}), so ` +
          `${extra.length === 1 ? 'it has' : 'they have'} no effect`,
      );
  }
  const purposes = Object.keys(requested.folders ?? {});
  for (const purpose of Object.keys(granted.folders)) {
    if (!purposes.includes(purpose))
      out.push(
        `grant.folders.${purpose}: the plugin asks for no folder by that purpose (` +
          `${purposes.length ? `it asks for ${purposes.join(', ')}` : 'it asks for none'}), so it has no effect`,
      );
  }
  return out;
}

/**
 * The permission sets of one plugin. Paths, requested and granted alike, resolve from `baseDir`
 * (the config file's folder, or the host's cwd for a config object) and are compared as paths.
 * A folder the plugin asks for by purpose (`permissions.folders`) is granted by that name
 * (`grant.folders`) and joins the effective fsRead or fsWrite as the resolved path.
 */
export function effectivePermissions(source: PluginSource, manifest: PluginManifest, baseDir: string): PermissionSets {
  const declaredEnv = union(manifest.permissions.env, ...manifest.tools.map((t) => t.requires.env));
  const folderRequests = manifest.permissions.folders ?? {};
  const requested = {
    ...normalize({ ...manifest.permissions, env: declaredEnv }),
    ...(Object.keys(folderRequests).length ? { folders: folderRequests } : {}),
  };
  const grant = source.grant;
  const grantedFolders = { ...(grant?.folders ?? {}) };
  if (source.trust === 'trusted') {
    const granted: Complete = grant
      ? { ...normalize(grant), folders: grantedFolders }
      : { ...normalize(requested), folders: {} };
    const folders = pick(grantedFolders, Object.keys(grantedFolders));
    const effective: Complete = {
      network: requested.network || granted.network,
      env: union(requested.env, granted.env),
      fsRead: union(requested.fsRead, granted.fsRead, folderPaths(folders, folderRequests, 'read')),
      fsWrite: union(requested.fsWrite, granted.fsWrite, folderPaths(folders, folderRequests, 'write')),
      callTools: union(requested.callTools, granted.callTools),
      folders,
    };
    return { requested, granted, effective, unmatched: [] };
  }
  const granted: Complete = { ...normalize(grant), folders: grantedFolders };
  const reads = overlap(requested.fsRead, granted.fsRead, baseDir);
  const writes = overlap(requested.fsWrite, granted.fsWrite, baseDir);
  const folders = pick(grantedFolders, Object.keys(folderRequests));
  return {
    requested,
    granted,
    effective: {
      network: requested.network && granted.network,
      env: intersect(requested.env, granted.env),
      fsRead: union(reads.effective, folderPaths(folders, folderRequests, 'read')),
      fsWrite: union(writes.effective, folderPaths(folders, folderRequests, 'write')),
      callTools: intersect(requested.callTools, granted.callTools),
      folders,
    },
    unmatched: unmatchedGrants(requested, granted, { fsRead: reads.unmatched, fsWrite: writes.unmatched }),
  };
}

function pick(folders: Record<string, string>, keys: string[]): Record<string, string> {
  return Object.fromEntries(keys.filter((k) => typeof folders[k] === 'string').map((k) => [k, folders[k]!]));
}

/**
 * The granted folders' paths with the given access (a folder the plugin did not ask for by purpose counts as
 * read-only).
 */
function folderPaths(
  folders: Record<string, string>,
  requests: Record<string, FolderRequest>,
  access: 'read' | 'write',
): string[] {
  return Object.entries(folders)
    .filter(([purpose]) => (requests[purpose]?.access ?? 'read') === access)
    .map(([, p]) => p);
}

/**
 * The sandbox grants of an effective permission set: fsRead and fsWrite paths
 * resolved from `baseDir` (the config file's folder, or the host's cwd when
 * the config is an object) to absolute real paths.
 */
export function sandboxGrants(effective: Grant | undefined, baseDir: string): SandboxGrants {
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
 * its sandbox `grants` (from {@link sandboxGrants}), which the process tier enforces. Trusted: what it requests,
 * relative to the workspace root (the file tools' `'.'` is the root), plus what the
 * operator granted, relative to the config folder; nothing enforces these in the
 * thread tier, so the plugin checks them itself. A write root is also a read root.
 * `protect` (the host's protected paths) stays read-only inside the write roots.
 */
export function pluginScope(
  source: PluginSource,
  permissions: { requested: Permissions; effective: Grant },
  config: Pick<ResolvedConfig, 'root' | 'dir'>,
  grants: SandboxGrants,
  protect: readonly ProtectedPath[] = [],
): PluginScope {
  const options = Object.freeze({ ...source.options });
  // Folders granted by purpose, relative to the config folder like every grant.
  const folders = Object.fromEntries(
    Object.entries(permissions.effective.folders ?? {}).map(([purpose, p]) => [
      purpose,
      resolveGrantPaths([p], config.dir)[0]!,
    ]),
  );
  if (source.trust === 'untrusted') {
    return {
      roots: { read: union(grants.fsRead, grants.fsWrite), write: union(grants.fsWrite), protect, folders },
      options,
    };
  }
  const { requested } = permissions;
  const granted = source.grant ?? {};
  const byPurpose = (access: 'read' | 'write') =>
    Object.keys(folders)
      .filter((k) => (requested.folders?.[k]?.access ?? 'read') === access)
      .map((k) => folders[k]!);
  const write = union(
    resolveGrantPaths(requested.fsWrite ?? [], config.root),
    resolveGrantPaths(granted.fsWrite ?? [], config.dir),
    byPurpose('write'),
  );
  const read = union(
    resolveGrantPaths(requested.fsRead ?? [], config.root),
    resolveGrantPaths(granted.fsRead ?? [], config.dir),
    byPurpose('read'),
    write,
  );
  return { roots: { read, write, protect, folders }, options };
}
