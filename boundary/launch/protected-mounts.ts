/**
 * Which protected paths a sandbox must mount read-only: those that exist inside the
 * folders it mounts writable. A mount needs something to mount over, so a protected
 * name that does not exist yet cannot be held by a mount: the terminal compares what
 * {@link findProtected} sees before and after each command and refuses (moves aside) a
 * protected name a command created. Reads the filesystem, so launch.ts stays pure: the
 * result goes into `LaunchSpec.readOnlyPaths`.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, renameSync } from 'node:fs';
import path from 'node:path';
import { isInside } from './paths.js';
import type { ProtectedPath } from '../plugin.js';

/**
 * Folders the walk visits in one write root before it stops looking deeper (a workspace has far fewer outside
 * node_modules).
 */
const MAX_WALK_DIRS = 20_000;

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

/** What one existing protected path was when it was seen (a later change of inode or time is a change). */
export interface ProtectedSeen {
  /** the `name` or `path` entry that covers it */
  entry: ProtectedPath;
  ino: number;
  mtimeMs: number;
  directory: boolean;
  /** the `.git` file whose `gitdir:` led here, for a child of the folder it names */
  via?: string;
}

function seen(p: string, entry: ProtectedPath): ProtectedSeen | undefined {
  try {
    const info = lstatSync(p);
    return { entry, ino: info.ino, mtimeMs: info.mtimeMs, directory: info.isDirectory() };
  } catch {
    return undefined;
  }
}

/**
 * Adds `p` (a protected name's place) to `found` when it exists; a `.git` folder (a name with `except`) adds its
 * protected children instead.
 */
function noteProtected(found: Map<string, ProtectedSeen>, p: string, entry: ProtectedPath, via?: string): void {
  if (found.has(p)) return;
  const seenNow = seen(p, entry);
  if (seenNow === undefined) return;
  const info: ProtectedSeen = via === undefined ? seenNow : { ...seenNow, via };
  if (entry.except?.length && info.directory) {
    const except = new Set(entry.except);
    let children: string[] = [];
    try {
      children = readdirSync(p);
    } catch {
      return;
    }
    for (const child of children)
      if (!except.has(child)) noteProtected(found, path.join(p, child), { ...entry, except: [] }, via);
    return;
  }
  found.set(p, info);
  // A `.git` file (`gitdir: <folder>`): the folder it names is held like a `.git` folder (as Codex holds it).
  if (entry.except?.length && !info.directory) {
    const gitdir = gitdirOf(p);
    if (gitdir !== undefined && !found.has(gitdir)) noteProtected(found, gitdir, entry, p);
  }
}

/** The folder a `.git` file's `gitdir:` line names, resolved against the file's folder, when it is one. */
function gitdirOf(file: string): string | undefined {
  try {
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(file, 'utf8').slice(0, 4096));
    if (!match) return undefined;
    const dir = path.resolve(path.dirname(file), match[1]!);
    return lstatSync(dir).isDirectory() ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every existing protected *name* inside `writeRoots`, at any depth (the walk does not
 * go into `node_modules` or `.git` folders, nor follow links; it stops after
 * {@link MAX_WALK_DIRS} folders per root), keyed by its path as found (links not
 * followed). A name with `except` (`.git`) is the name itself when it is not a folder
 * (a `gitdir:` file, and then the protected children of the folder it names too) and its
 * protected children when it is.
 */
export function findProtected(
  writeRoots: readonly string[],
  protect: readonly ProtectedPath[] | undefined,
): Map<string, ProtectedSeen> {
  const found = new Map<string, ProtectedSeen>();
  const names = (protect ?? []).filter((entry) => entry.kind === 'name');
  if (!names.length) return found;
  const byFirst = new Map<string, Array<{ entry: ProtectedPath; rest: string[] }>>();
  for (const entry of names) {
    const [first, ...rest] = entry.value.split('/');
    byFirst.set(first!, [...(byFirst.get(first!) ?? []), { entry, rest }]);
  }
  const note = (p: string, entry: ProtectedPath) => noteProtected(found, p, entry);
  for (const root of writeRoots) {
    // Breadth first, read by index: shift() would move the whole queue for each folder.
    const queue = [root];
    for (let next = 0; next < queue.length && next < MAX_WALK_DIRS; next++) {
      const dir = queue[next]!;
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const dirent of entries) {
        for (const { entry, rest } of byFirst.get(dirent.name) ?? []) note(path.join(dir, dirent.name, ...rest), entry);
        if (
          dirent.isDirectory() &&
          dirent.name !== 'node_modules' &&
          dirent.name !== '.git' &&
          !found.has(path.join(dir, dirent.name))
        )
          queue.push(path.join(dir, dirent.name));
      }
    }
  }
  return found;
}

/**
 * The existing real paths among `protect` that lie inside a write root (a write root
 * inside a protected path is itself returned: all of it stays read-only). `name` entries
 * are looked for at any depth of each write root ({@link findProtected}) and in every
 * folder from `cwd` up to it (where a toolshed started there would look for its config,
 * and where git looks for `.git`). `found`: what {@link findProtected} returned for these
 * write roots just now, when the caller has it (the walk is not repeated).
 */
export function protectedMounts(
  writeRoots: readonly string[],
  protect: readonly ProtectedPath[] | undefined,
  cwd?: string,
  found?: ReadonlyMap<string, ProtectedSeen>,
): string[] {
  if (!protect?.length) return [];
  const mounts = new Set<string>();
  const add = (p: string, root: string) => {
    const real = realIfExists(p);
    if (real !== undefined && isInside(real, root)) mounts.add(real);
  };
  for (const rootGiven of writeRoots) {
    const root = realIfExists(rootGiven);
    if (root === undefined) continue;
    for (const entry of protect) {
      if (entry.kind === 'path') {
        if (isInside(root, entry.value)) mounts.add(root);
        else if (isInside(entry.value, root)) add(entry.value, root);
        continue;
      }
      for (const dir of chain(root, cwd)) {
        const at = new Map<string, ProtectedSeen>();
        noteProtected(at, path.join(dir, ...entry.value.split('/')), entry);
        for (const p of at.keys()) add(p, root);
      }
    }
    for (const p of (found ?? findProtected([root], protect)).keys()) add(p, root);
  }
  return [...mounts].sort((a, b) => a.length - b.length || a.localeCompare(b));
}

/** A protected path a command created or changed, and what was done with it. */
export interface ProtectedChange {
  path: string;
  entry: ProtectedPath;
  /** `created`: it did not exist before the command; `changed`: it did, and its inode or time differs */
  change: 'created' | 'changed';
  /** where a created one was moved to (beside it, under a name nothing reads), when it could be */
  movedTo?: string;
}

/**
 * Compares `before` with what exists now (both from {@link findProtected}) and moves every
 * protected name that was created in between aside, beside it as `<name>.refused-by-toolshed-<n>`,
 * which nothing reads; a changed one is reported only (its old content is gone).
 */
export function refuseCreated(
  before: ReadonlyMap<string, ProtectedSeen>,
  after: ReadonlyMap<string, ProtectedSeen>,
): ProtectedChange[] {
  const changes: ProtectedChange[] = [];
  for (const [p, now] of [...after].sort(([a], [b]) => a.length - b.length)) {
    const then = before.get(p);
    if (then !== undefined) {
      if (then.ino !== now.ino || (!now.directory && then.mtimeMs !== now.mtimeMs))
        changes.push({ path: p, entry: now.entry, change: 'changed' });
      continue;
    }
    // A name below one already refused moves with it; one found through a new `.git` file goes with that file's
    // refusal.
    if (changes.some((c) => c.change === 'created' && isInside(p, c.path))) continue;
    if (now.via !== undefined && !before.has(now.via)) continue;
    const change: ProtectedChange = { path: p, entry: now.entry, change: 'created' };
    for (let n = 1; n < 100; n++) {
      const aside = `${p}.refused-by-toolshed-${n}`;
      if (seen(aside, now.entry) !== undefined) continue;
      try {
        renameSync(p, aside);
        change.movedTo = aside;
      } catch {
        // left where it is; the refusal says so
      }
      break;
    }
    changes.push(change);
  }
  return changes.sort((a, b) => a.path.localeCompare(b.path));
}
