/**
 * What the operator's grant means for an untrusted plugin: the absolute paths
 * its sandbox may read and write, and the tools hidden because something they
 * declare they need was not granted (so the model never sees a tool that
 * could only fail).
 *
 * The hiding rule, for untrusted plugins only (trusted plugins get what they request):
 * - a tool whose `requires.env` names a variable outside the effective env grant
 *   is hidden: "environment variable X not granted to untrusted plugin P";
 * - a plugin that requests `network: true` without the grant has all its tools
 *   hidden: "network access not granted to untrusted plugin P". Tools cannot
 *   yet declare network needs one by one, and a plugin that asks for the
 *   network is taken at its word that it needs it.
 */
import { resolveGrantPaths } from '../sandbox/process-paths.js';
import type { SandboxGrants } from '../sandbox/process-runner.js';
import type { Availability } from './availability.js';
import type { Permissions } from './plugin.js';
import type { ToolRecord } from './types.js';

/** Why `record` cannot run with its plugin's grants, or undefined when nothing is missing. */
export function grantGap(record: ToolRecord): Availability | undefined {
  const { source, permissions } = record.plugin;
  if (source.trust !== 'untrusted') return undefined;
  if (permissions.requested.network && !permissions.effective.network) {
    return { ok: false, kind: 'permissions', reason: `network access not granted to untrusted plugin ${source.name}` };
  }
  const granted = new Set(permissions.effective.env ?? []);
  const missing = record.manifest.requires.env.filter((name) => !granted.has(name));
  if (missing.length) {
    return { ok: false, kind: 'permissions', reason: `environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not granted to untrusted plugin ${source.name}` };
  }
  return undefined;
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
