/**
 * Code pinning: fingerprints of the files a worker will import, taken by the host when it
 * loads them and compared by the worker before it imports them. A file the model's tools
 * overwrote after the host loaded it (a trusted plugin, toolshed's own runtime) is then
 * refused as PLUGIN_CHANGED instead of running in the next worker, until the host restarts.
 *
 * A fingerprint is a stat tuple (dev, ino, size, mtime and ctime in ns), not a hash: cheap
 * enough to take at every start and to check in every new worker, and a change cannot hide
 * from it (ctime cannot be set from user space; a replaced file has a new inode). Folders
 * are pinned too, so a file added to one changes its folder's fingerprint.
 *
 * Imported by the host and by a worker before anything else: node built-ins only.
 */
import { readdirSync, statSync, type BigIntStats } from 'node:fs';
import path from 'node:path';

/** Absolute path → fingerprint, for every file and folder pinned (plain data: it crosses to workers). */
export type Pins = Record<string, string>;

/** What a thread-tier worker gets as its workerData: the runtime's pins, and each plugin's by entry URL. */
export interface WorkerPins {
  runtime?: Pins;
  plugins?: Record<string, Pins>;
}

/** A pinned file or folder that is no longer what the host loaded. */
export interface PinChange {
  /** the changed, removed or added file */
  file: string;
  /** whether it is toolshed's own runtime rather than a plugin's */
  runtime: boolean;
}

/** More than this many files and folders in one package are not pinned (their folders still are). */
const MAX_PINS = 20_000;

function fingerprint(info: BigIntStats): string {
  return `${info.isDirectory() ? 'd' : 'f'}:${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/** The fingerprint of `file` now (links followed), or undefined when it is gone. */
function current(file: string): string | undefined {
  const info = statSync(file, { bigint: true, throwIfNoEntry: false });
  return info ? fingerprint(info) : undefined;
}

/**
 * Pins a package folder: every file and folder below it, nested dependencies it ships
 * included, `.git` skipped. Linked folders are followed once (pnpm links dependencies).
 */
export function pinTree(dir: string): Pins {
  const pins: Pins = {};
  let count = 0;
  const seen = new Set<string>();
  const walk = (folder: string): void => {
    const info = statSync(folder, { bigint: true, throwIfNoEntry: false });
    if (!info?.isDirectory()) return;
    const id = `${info.dev}:${info.ino}`;
    if (seen.has(id)) return;
    seen.add(id);
    pins[folder] = fingerprint(info);
    for (const item of readdirSync(folder, { withFileTypes: true })) {
      if (++count > MAX_PINS) return;
      if (item.name === '.git') continue;
      const full = path.join(folder, item.name);
      if (item.isDirectory() || (item.isSymbolicLink() && statSync(full, { throwIfNoEntry: false })?.isDirectory()))
        walk(full);
      else {
        const stamp = current(full);
        if (stamp !== undefined) pins[full] = stamp;
      }
    }
  };
  walk(path.resolve(dir));
  return pins;
}

/** Pins exactly the given files (no folder: files added beside them do not matter). */
export function pinFiles(files: Iterable<string>): Pins {
  const pins: Pins = {};
  for (const file of files) {
    const stamp = current(file);
    if (stamp !== undefined) pins[file] = stamp;
  }
  return pins;
}

/** For a changed folder, the entry in it that was not pinned (what was added), else the folder itself. */
function addedIn(folder: string, pins: Pins): string {
  try {
    for (const name of readdirSync(folder)) {
      const full = path.join(folder, name);
      if (name !== '.git' && pins[full] === undefined) return full;
    }
  } catch {
    // Gone or unreadable: the folder is what changed.
  }
  return folder;
}

/**
 * The first pinned file or folder that changed since `pins` were taken, or undefined when none
 * did. Files are compared first, so a file replaced by a rename is named rather than its folder.
 */
export function changedPin(pins: Pins, runtime = false): PinChange | undefined {
  const folders: string[] = [];
  for (const file in pins) {
    const stamp = pins[file]!;
    if (stamp.startsWith('d')) {
      folders.push(file);
      continue;
    }
    if (current(file) !== stamp) return { file, runtime };
  }
  for (const folder of folders) {
    const now = current(folder);
    if (now !== pins[folder]) return { file: now?.startsWith('d') ? addedIn(folder, pins) : folder, runtime };
  }
  return undefined;
}

/** The sentence every PLUGIN_CHANGED failure says, for the worker's error and the host's reason alike. */
function changedMessage(change: PinChange): string {
  return `${change.file} changed after the host loaded it; restart the host to load it`;
}

/** The reason the host hides a changed plugin's tools with, in explain and the TOOL_NOT_EXPOSED envelope. */
export function changedReason(change: PinChange): string {
  return `PLUGIN_CHANGED: ${changedMessage(change)}`;
}

/** The error a worker fails a task with when a pinned file changed: code PLUGIN_CHANGED, the file in `data`. */
export function changedError(change: PinChange): Error & { code: 'PLUGIN_CHANGED'; data: PinChange } {
  return Object.assign(new Error(changedMessage(change)), { code: 'PLUGIN_CHANGED' as const, data: change });
}

/** The PinChange a failed task's serialized error carries, when its code is PLUGIN_CHANGED. */
export function pinChangeOf(error: { code?: string; data?: unknown }): PinChange | undefined {
  if (error.code !== 'PLUGIN_CHANGED') return undefined;
  const data = (error.data ?? {}) as Partial<PinChange>;
  return { file: typeof data.file === 'string' ? data.file : 'a pinned file', runtime: data.runtime === true };
}
