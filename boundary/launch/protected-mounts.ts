/**
 * Which protected paths a sandbox must mount read-only: those that exist inside the
 * folders it mounts writable. A mount needs something to mount over, so a protected
 * name that does not exist yet (a config file not created) cannot be held here; config
 * trust catches such a file at the next start (docs/security.md). Reads the filesystem,
 * so launch.ts stays pure: the result goes into `LaunchSpec.readOnlyPaths`.
 */
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isInside } from './paths.js';
import type { ProtectedPath } from '../plugin.js';

function realIfExists(p: string): string | undefined {
  try {
    lstatSync(p);
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/** The folders from `cwd` up to `root`, both included (just `root` when cwd lies outside it). */
function chain(root: string, cwd: string | undefined): string[] {
  if (cwd === undefined || !isInside(cwd, root)) return [root];
  const dirs: string[] = [];
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    dirs.push(dir);
    if (dir === root || path.dirname(dir) === dir) return dirs;
  }
}

/**
 * The existing real paths among `protect` that lie inside a write root (a write root
 * inside a protected path is itself returned: all of it stays read-only). `name` entries
 * are looked for in each write root and in every folder from `cwd` up to it (where a
 * toolshed started there would look for its config, and where git looks for `.git`).
 */
export function protectedMounts(writeRoots: readonly string[], protect: readonly ProtectedPath[] | undefined, cwd?: string): string[] {
  if (!protect?.length) return [];
  const found = new Set<string>();
  for (const rootGiven of writeRoots) {
    const root = realIfExists(rootGiven);
    if (root === undefined) continue;
    for (const entry of protect) {
      if (entry.kind === 'path') {
        if (isInside(root, entry.value)) found.add(root);
        else if (isInside(entry.value, root)) {
          const real = realIfExists(entry.value);
          if (real !== undefined && isInside(real, root)) found.add(real);
        }
        continue;
      }
      for (const dir of chain(root, cwd)) {
        const real = realIfExists(path.join(dir, ...entry.value.split('/')));
        if (real !== undefined && isInside(real, root)) found.add(real);
      }
    }
  }
  return [...found].sort((a, b) => a.length - b.length || a.localeCompare(b));
}
