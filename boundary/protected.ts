/**
 * Protected paths: what stays read-only to the model's tools even inside a
 * writable root (a config file, hook modules, plugin code, toolshed's own
 * install, `.git` but what git add/commit write, `.npmrc`, shell rc files, the
 * operator's `protect` list: core/load/protect.ts holds the list). The
 * host computes the list (core/load/protect.ts) and hands it to every plugin in
 * `ctx.roots.protect`; the file tools refuse a write that one covers, and the
 * sandboxes (the terminal's bubblewrap, the process tier) re-bind them
 * read-only. Pure and shared by both sides, so both reach the same verdict.
 */
import path from 'node:path';
import type { ProtectedPath } from './plugin-api.js';

// Case-insensitive filesystems (macOS, Windows by default) must not let `.ToolshedRC` through.
const FOLD = process.platform === 'darwin' || process.platform === 'win32';
const fold = (s: string) => (FOLD ? s.toLowerCase() : s);

function segmentsOf(p: string): string[] {
  return p
    .split(/[\\/]+/)
    .filter((s) => s !== '' && s !== '.')
    .map(fold);
}

/** Whether `target` is `root` or lies below it (both absolute). */
function isWithin(target: string, root: string): boolean {
  const rel = path.relative(fold(root), fold(target));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Whether `segments` contains `name` as consecutive segments, at a place not opened by
 * `except` (the segment right after the run names a writable child).
 */
function containsRun(
  segments: readonly string[],
  name: readonly string[],
  except: ReadonlySet<string> | undefined,
): boolean {
  outer: for (let i = 0; i + name.length <= segments.length; i++) {
    for (let j = 0; j < name.length; j++) if (segments[i + j] !== name[j]) continue outer;
    const child = segments[i + name.length];
    if (except !== undefined && child !== undefined && except.has(child)) continue;
    return true;
  }
  return false;
}

const exceptSets = new WeakMap<ProtectedPath, ReadonlySet<string>>();
function exceptOf(entry: ProtectedPath): ReadonlySet<string> | undefined {
  if (!entry.except?.length) return undefined;
  let set = exceptSets.get(entry);
  if (set === undefined) exceptSets.set(entry, (set = new Set(entry.except.map(fold))));
  return set;
}

/**
 * The entry of `protect` that covers `target` (an absolute, real path), or undefined.
 * @example
 * protectedBy('/w/.git/hooks/pre-commit', [{ kind: 'name', value: '.git/hooks', why: 'git runs it' }]); // → that entry
 * protectedBy('/w/.git/refs/heads/main', [{ kind: 'name', value: '.git', why: '…', except: ['refs'] }]); // → undefined
 */
export function protectedBy(target: string, protect: readonly ProtectedPath[] | undefined): ProtectedPath | undefined {
  if (!protect?.length) return undefined;
  const absolute = path.resolve(target);
  let segments: string[] | undefined;
  for (const entry of protect) {
    if (entry.kind === 'path') {
      if (isWithin(absolute, entry.value)) return entry;
    } else {
      segments ??= segmentsOf(absolute);
      if (containsRun(segments, segmentsOf(entry.value), exceptOf(entry))) return entry;
    }
  }
  return undefined;
}

/**
 * The refusal's words for a protected path shown as `shown` (whose real path is `target`): names it, says why, and what
 * to do.
 */
export function protectedMessage(shown: string, entry: ProtectedPath, target?: string): string {
  const exact = target !== undefined ? path.resolve(target) === entry.value : shown === entry.value;
  const what =
    entry.kind === 'name'
      ? `a protected name (${entry.value})`
      : exact
        ? 'protected'
        : `inside a protected path (${entry.value})`;
  return (
    `Permission denied: ${shown} is ${what}: ${entry.why}. The model's tools may not change it even inside the ` +
    `workspace; the operator can change it by hand.`
  );
}
