/**
 * The folders the model's tools can write, as far as the config says before any
 * plugin loads: the workspace root (the file tools and the terminal write there) and
 * every `fsWrite` (and purpose-named folder) the config grants a plugin or an MCP server. What lies inside one of
 * them may have been written by the model, so the host never runs or trusts it
 * without the operator's decision (protected paths, config trust, caches elsewhere).
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isInside, resolveGrantPaths } from '../../boundary/launch/paths.js';

/** A grant as far as writing goes: its write paths, and its folders by purpose. */
interface WriteGrant {
  fsWrite?: string[];
  folders?: Record<string, string>;
}

/** What this reads of a resolved config (written out here, so config.ts can import this module without a cycle). */
interface GrantingConfig {
  root: string;
  dir: string;
  plugins: ReadonlyArray<string | { grant?: WriteGrant }>;
  mcpServers: Readonly<Record<string, { grant?: WriteGrant }>>;
}

/** Absolute paths of every folder the config lets the model's tools write. */
export function writableRoots(config: GrantingConfig): string[] {
  const roots = new Set<string>([path.resolve(config.root)]);
  const grants = [
    ...config.plugins.flatMap((entry) => (typeof entry === 'object' && entry.grant ? [entry.grant] : [])),
    ...Object.values(config.mcpServers).flatMap((server) => (server.grant ? [server.grant] : [])),
  ];
  // A folder granted by purpose (grant.folders) counts as writable: whether the plugin asked to write it is known only
  // once it loads.
  for (const grant of grants)
    for (const p of resolveGrantPaths([...(grant.fsWrite ?? []), ...Object.values(grant.folders ?? {})], config.dir))
      roots.add(p);
  return [...roots].sort();
}

/** Whether `target` is one of `roots` or lies inside one (segment-wise). */
export function insideAny(target: string, roots: readonly string[]): string | undefined {
  const absolute = path.resolve(target);
  return roots.find((root) => isInside(absolute, root));
}

/** `target` with its existing part resolved through links, so a link cannot hide where it points. */
function realish(target: string): string {
  let existing = target;
  while (!existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  try {
    return path.join(realpathSync(existing), path.relative(existing, target));
  } catch {
    return target;
  }
}

/** Like `insideAny`, and again with `target` and `roots` resolved through links: the root it lies inside either way. */
export function insideAnyReally(target: string, roots: readonly string[]): string | undefined {
  return insideAny(target, roots) ?? insideAny(realish(target), roots.map(realish));
}
