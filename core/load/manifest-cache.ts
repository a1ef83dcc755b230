/**
 * The on-disk manifest cache. A second start with nothing changed reads
 * manifests from here and starts no worker. The key covers the package name
 * and version, a hash of the entry module's content, and the size and mtime
 * of every other file of the package (so editing a helper module the entry
 * imports invalidates it too).
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { PLUGIN_API_VERSION, TOOLSHED_VERSION } from '../version.js';
import { ensurePrivateDir, readPrivateFile, writePrivateFile } from '../private-dir.js';
import type { PluginManifest, PluginSource } from '../types.js';

const SKIP_DIRS = new Set(['node_modules', '.git', 'test', 'tests', '__tests__']);
const MAX_FILES = 2_000;

function fileStamps(dir: string, entry: string): string[] {
  const stamps: string[] = [];
  const walk = (folder: string) => {
    for (const item of readdirSync(folder, { withFileTypes: true })) {
      if (stamps.length >= MAX_FILES) return;
      const full = path.join(folder, item.name);
      if (item.isDirectory()) {
        if (!SKIP_DIRS.has(item.name) && !item.name.startsWith('.')) walk(full);
      } else if (item.isFile() && full !== entry) {
        const st = statSync(full);
        stamps.push(`${path.relative(dir, full)}:${st.size}:${st.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return stamps.sort();
}

/** Bumped when the manifest's stored shape changes (2: tool annotations), so older entries are re-extracted. */
const MANIFEST_FORMAT = 2;

/** The cache key of a plugin's current files. */
export function manifestKey(source: PluginSource): string {
  const hash = createHash('sha256');
  hash.update(`${TOOLSHED_VERSION}\0${PLUGIN_API_VERSION}\0${MANIFEST_FORMAT}\0${source.name}\0${source.version}\0`);
  hash.update(readFileSync(source.entry));
  // A bare module's folder may be a whole project; only its entry counts then.
  if (source.version !== '0.0.0' || source.builtin) for (const stamp of fileStamps(source.dir, source.entry)) hash.update(`\0${stamp}`);
  return hash.digest('hex');
}

const safeName = (name: string) => name.replace(/[^a-zA-Z0-9._-]/g, '_');

function cacheFile(folder: string, source: PluginSource): string {
  const safe = safeName(source.name);
  const where = createHash('sha256').update(source.entry).digest('hex').slice(0, 12);
  return path.join(folder, `${safe}-${where}.json`);
}

/**
 * A cache directory; reads and writes never throw (a broken cache only costs an extraction).
 * Its folder is per-user state (see private-dir.ts): checked once, when first used, to be
 * this user's alone; a folder that is not is left untouched and the cache is off, with
 * the reason in `refusal`. Once checked, no other user can change what is in it, and each
 * file is still opened without following links and checked on its descriptor.
 */
export class ManifestCache {
  private checked: string | undefined;
  /** why the cache is off, when its folder failed the per-user check */
  refusal: string | undefined;

  constructor(private readonly dir: string) {}

  private folder(): string | undefined {
    if (this.checked === undefined && this.refusal === undefined) {
      try {
        this.checked = ensurePrivateDir(path.join(this.dir, 'manifests'));
      } catch (error) {
        this.refusal = `manifest cache off: ${(error as Error).message}`;
      }
    }
    return this.checked;
  }

  /** The cached manifest for `key`, if present and intact. */
  read(source: PluginSource, key: string): PluginManifest | undefined {
    const folder = this.folder();
    if (folder === undefined) return undefined;
    try {
      const text = readPrivateFile(cacheFile(folder, source));
      if (text === undefined) return undefined;
      const stored = JSON.parse(text) as { key?: string; manifest?: PluginManifest };
      return stored.key === key ? stored.manifest : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The newest manifest stored for a plugin named `name`, whatever its key: what the
   * plugin declared the last time it loaded here, for explaining it when it fails.
   */
  lastKnown(name: string): PluginManifest | undefined {
    const folder = this.folder();
    if (folder === undefined) return undefined;
    let newest: { mtime: number; manifest: PluginManifest } | undefined;
    try {
      for (const file of readdirSync(folder)) {
        if (!file.startsWith(`${safeName(name)}-`) || !file.endsWith('.json')) continue;
        const full = path.join(folder, file);
        const text = readPrivateFile(full);
        if (text === undefined) continue;
        const stored = JSON.parse(text) as { plugin?: string; manifest?: PluginManifest };
        const mtime = statSync(full).mtimeMs;
        if (stored.plugin === name && stored.manifest && (!newest || mtime > newest.mtime)) newest = { mtime, manifest: stored.manifest };
      }
    } catch {
      // A damaged entry: nothing is known.
    }
    return newest?.manifest;
  }

  /** Stores a manifest atomically (an exclusively created temp file, then a rename). */
  write(source: PluginSource, key: string, manifest: PluginManifest): void {
    const folder = this.folder();
    if (folder === undefined) return;
    try {
      writePrivateFile(cacheFile(folder, source), JSON.stringify({ key, plugin: source.name, version: source.version, manifest }));
    } catch {
      // Read-only or full disk: the host still works, only slower next start.
    }
  }
}
