/**
 * The paths a process-tier child may read: toolshed's own runtime files, the
 * plugin's package and its dependencies (found and checked at load by
 * dependencies.ts), and granted paths; plus the load-time symlink rule. Node's permission model
 * follows symbolic links to anywhere, so a link inside a readable folder that
 * points outside every readable folder is refused before the child starts.
 */
import { existsSync, realpathSync } from 'node:fs';
import { readdir, readlink, realpath } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Directory entries the symlink scan visits before it refuses to vouch for a tree. */
const MAX_SCAN_ENTRIES = 200_000;

function packageDirOf(file: string): string {
  let dir = path.dirname(file);
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${file}`);
    dir = parent;
  }
}

let runtime: string[] | undefined;

/**
 * What the child entry itself needs to read: toolshed's compiled sandbox and
 * boundary folders (the code that runs beside plugin code imports nothing else
 * of toolshed's), its package.json (module type lookup) and the real folders of
 * piscina and comlink.
 */
export function runtimeReadPaths(): string[] {
  if (runtime) return runtime;
  const require = createRequire(import.meta.url);
  const paths = [
    fileURLToPath(new URL('../../sandbox/', import.meta.url)),
    fileURLToPath(new URL('../', import.meta.url)),
    fileURLToPath(new URL('../../../package.json', import.meta.url)),
    packageDirOf(require.resolve('piscina')),
    packageDirOf(require.resolve('comlink')),
  ];
  runtime = paths.map((p) => realpathSync(p));
  return runtime;
}

/** The plugin's package folder (real path) and its checked dependency folders (see dependencies.ts). */
export function pluginReadRoots(dir: string, dependencyDirs: readonly string[]): string[] {
  return [realpathSync(dir), ...dependencyDirs];
}

/**
 * Grant paths as absolute real paths. Relative paths resolve from `baseDir`
 * (the config file's folder, or the host's cwd for a config object), the same
 * folder plugin paths resolve from. A path that does not exist yet is kept
 * as resolved, so a plugin may create a granted output folder.
 */
export function resolveGrantPaths(paths: readonly string[], baseDir: string): string[] {
  return paths.map((p) => realOrResolved(path.resolve(baseDir, p)));
}

/** The real path of `p` when it exists, else `p` made absolute (so paths that exist compare by what they lead to). */
export function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** Whether `target` is `root` or inside it. */
export function isInside(target: string, root: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** A symlink that would let the child read outside its grants. */
interface EscapingLink {
  link: string;
  target: string;
}

/**
 * Walks `roots` without following links and returns the first symlink whose
 * target (lexically and, when it exists, really) lies outside every path in
 * `allowed`, or a refusal when a tree is too large to vouch for.
 */
export async function findEscapingSymlink(
  roots: readonly string[],
  allowed: readonly string[],
): Promise<EscapingLink | { tooLarge: number } | undefined> {
  const inAllowed = (p: string) => allowed.some((root) => isInside(p, root));
  const queue = [...new Set(roots)];
  let visited = 0;
  while (queue.length) {
    const dir = queue.pop()!;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable for the host too: the child cannot read it either
    }
    for (const entry of entries) {
      if (++visited > MAX_SCAN_ENTRIES) return { tooLarge: MAX_SCAN_ENTRIES };
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        queue.push(full);
      } else if (entry.isSymbolicLink()) {
        const lexical = path.resolve(dir, await readlink(full));
        if (!inAllowed(lexical)) return { link: full, target: lexical };
        const real = await realpath(full).catch(() => undefined);
        if (real !== undefined && !inAllowed(real)) return { link: full, target: real };
      }
    }
  }
  return undefined;
}
