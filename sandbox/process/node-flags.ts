/**
 * Which spelling of Node's permission model the running Node has, read from
 * its flag set (the children and node MCP servers run under the host's own
 * `process.execPath`, so the host's flags are theirs).
 */

const flags = process.allowedNodeEnvironmentFlags;

/** `--permission` (Node 22.13+, stable) or `--experimental-permission` (Node 20). */
export function permissionFlag(): string {
  return flags.has('--permission') ? '--permission' : '--experimental-permission';
}

/**
 * Whether this Node's permission model also holds the network (Node 25+): without
 * `--allow-net` a process gets no sockets, no DNS and no fetch, Unix sockets included.
 */
export function permissionHoldsNetwork(): boolean {
  return flags.has('--allow-net');
}

/** The permission model's network flag for a process with (or without) the network grant. */
export function networkFlags(network: boolean): string[] {
  return network && permissionHoldsNetwork() ? ['--allow-net'] : [];
}
