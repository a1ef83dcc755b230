/**
 * Node's permission-model flags for a process toolshed starts under it (a
 * process-tier child, a node MCP server): the model's spelling on the running
 * Node, read from its flag set (both run under the host's own `process.execPath`,
 * so the host's flags are theirs), the network flag, and the file grants.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

const flags = process.allowedNodeEnvironmentFlags;

/** `--permission` (Node 22.13+, stable) or `--experimental-permission` (Node 20). */
function permissionFlag(): string {
  return flags.has('--permission') ? '--permission' : '--experimental-permission';
}

/**
 * Whether this Node's permission model also holds the network (Node 25+): without
 * `--allow-net` a process gets no sockets, no DNS and no fetch, Unix sockets included.
 */
function permissionHoldsNetwork(): boolean {
  return flags.has('--allow-net');
}

/** The permission model's network flag for a process with (or without) the network grant. */
function networkFlags(network: boolean): string[] {
  return network && permissionHoldsNetwork() ? ['--allow-net'] : [];
}

/**
 * Whether Node's permission model refuses a process with (or without) the network grant the network: `netPermission` in
 * its protections.
 */
export function netPermission(network: boolean): boolean {
  return !network && permissionHoldsNetwork();
}

/**
 * Node's `--allow-fs-read`/`--allow-fs-write` flags. A write path may also be read (docs/plugins.md
 * says so, and `explain` prints it as readable). Node turns a granted folder into "the folder and
 * everything below" only when it exists at start (it stats each path once); a path missing then is
 * granted as a single file, so a folder the plugin creates later would stay closed. A missing path
 * is therefore also granted as `path/*`, which covers what is later created below it and nothing
 * beside it (`path-other` does not match).
 */
function fsPermissionFlags(readPaths: readonly string[], writePaths: readonly string[]): string[] {
  const spell = (p: string) => (existsSync(p) ? [p] : [p, `${p}${p.endsWith(path.sep) ? '' : path.sep}*`]);
  const sorted = (paths: readonly string[]) => [...new Set(paths)].sort();
  return [
    ...sorted([...readPaths, ...writePaths])
      .flatMap(spell)
      .map((p) => `--allow-fs-read=${p}`),
    ...sorted(writePaths)
      .flatMap(spell)
      .map((p) => `--allow-fs-write=${p}`),
  ];
}

/**
 * The permission model with exactly these grants: its flag, `--allow-net` only with the network
 * grant (where Node's model covers the network, 25+, it is then refused by Node too, namespace
 * or not), and the file grants.
 */
export function permissionModelFlags(reads: readonly string[], writes: readonly string[], network: boolean): string[] {
  return [permissionFlag(), ...networkFlags(network), ...fsPermissionFlags(reads, writes)];
}
