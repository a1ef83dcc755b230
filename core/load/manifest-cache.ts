/**
 * The on-disk manifest cache. A second start with nothing changed reads
 * manifests from here and starts no worker. The key covers the package name
 * and version, a hash of the entry module's content, and the size and mtime
 * of every other file of the package (so editing a helper module the entry
 * imports invalidates it too).
 *
 * The cache holds no trust: each entry carries a MAC (cache-mac.ts) and one that
 * does not verify is ignored; what it stores is the manifest as the worker extracted
 * it, which the loader validates again (normalizeManifest) like a fresh extraction,
 * so permissions, roots and annotations are never taken from it on its word. An entry whose
 * Standard Schema parameters were converted by a package that changed since is not used either.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { PLUGIN_API_VERSION, TOOLSHED_VERSION } from '../../boundary/version.js';
import { ensurePrivateDir, readPrivateFile, writePrivateFile } from '../../boundary/private-dir.js';
import { cacheMac, type CacheMac } from './cache-mac.js';
import type { PluginSource } from './types.js';
import type { RawManifest } from '../../boundary/protocol.js';
import type { Pins } from '../../boundary/pins.js';

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

/**
 * Bumped when the manifest's stored shape changes (2: tool annotations; 3: raw manifests with a MAC;
 * 4: Standard Schema parameters converted to JSON Schema, with their converters' versions; 5: `codeCallable`
 * beside its alias `sandbox`; 6: a tool's `longRunning`, `outputSchema`, `title`, `icons` and `examples`; 7: a tool's
 * `secrets`), so older entries are re-extracted.
 */
const MANIFEST_FORMAT = 7;

/** A package.json larger than this is not a converter's: the entry is not trusted to be current. */
const MAX_PACKAGE_JSON_BYTES = 1024 * 1024;

/**
 * Whether the packages that converted a manifest's Standard Schema parameters (zod, valibot's
 * converter…: `schemaLibraries`, see sandbox/worker/standard-schema.ts) still have the versions they
 * had. The cache key covers the plugin's own files (and a trusted plugin's pins, the dependencies
 * inside its folder), not a dependency hoisted beside it, as zod usually is: upgrading it under an
 * unchanged plugin would otherwise keep the old conversion. The paths come from the plugin's tier:
 * only a regular file named package.json, of a bounded size, is read; anything else fails the check.
 */
function schemaLibrariesUnchanged(manifest: RawManifest): boolean {
  const libraries = manifest.schemaLibraries;
  if (libraries === undefined) return true;
  if (!Array.isArray(libraries)) return false;
  return libraries.every((library: unknown) => {
    const { packageJson, version } = (library ?? {}) as { packageJson?: unknown; version?: unknown };
    if (
      typeof packageJson !== 'string' ||
      typeof version !== 'string' ||
      !path.isAbsolute(packageJson) ||
      path.basename(packageJson) !== 'package.json'
    )
      return false;
    try {
      const st = statSync(packageJson);
      if (!st.isFile() || st.size > MAX_PACKAGE_JSON_BYTES) return false;
      return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version?: unknown }).version === version;
    } catch {
      return false;
    }
  });
}

/**
 * The cache key of a plugin's current files. A pinned plugin's key comes from its pins (taken
 * just before, see sandbox/pins.ts): the size and mtime of every file it has, so the folder is
 * not walked twice at every start.
 */
export function manifestKey(source: PluginSource, pins?: Pins): string {
  const hash = createHash('sha256');
  hash.update(`${TOOLSHED_VERSION}\0${PLUGIN_API_VERSION}\0${MANIFEST_FORMAT}\0${source.name}\0${source.version}\0`);
  hash.update(readFileSync(source.entry));
  if (pins) {
    for (const file of Object.keys(pins).sort()) {
      const [kind, , , size, mtime] = pins[file]!.split(':');
      if (kind === 'f') hash.update(`\0${path.relative(source.dir, file)}:${size}:${mtime}`);
    }
    return hash.digest('hex');
  }
  // A bare module's folder may be a whole project; only its entry counts then.
  if (source.version !== '0.0.0' || source.builtin)
    for (const stamp of fileStamps(source.dir, source.entry)) hash.update(`\0${stamp}`);
  return hash.digest('hex');
}

const safeName = (name: string) => name.replace(/[^a-zA-Z0-9._-]/g, '_');

function cacheFile(folder: string, source: PluginSource): string {
  const safe = safeName(source.name);
  const where = createHash('sha256').update(source.entry).digest('hex').slice(0, 12);
  return path.join(folder, `${safe}-${where}.json`);
}

/** What one entry stores, as the JSON text its MAC covers. */
interface StoredBody {
  key: string;
  plugin: string;
  version: string;
  manifest: RawManifest;
}

/**
 * A cache directory; reads and writes never throw (a broken cache only costs an extraction).
 * Its folder is per-user state (see private-dir.ts): checked once, when first used, to be
 * this user's alone; a folder that is not is left untouched and the cache is off, with
 * the reason in `refusal`. Once checked, no other user can change what is in it, and each
 * file is still opened without following links and checked on its descriptor. The same
 * holds for the MAC key in the user's state folder: without it the cache is off.
 */
export class ManifestCache {
  private checked: { folder: string; mac: CacheMac } | undefined;
  /** why the cache is off, when its folder or its key failed the per-user check */
  refusal: string | undefined;

  constructor(private readonly dir: string) {}

  private open(): { folder: string; mac: CacheMac } | undefined {
    if (this.checked === undefined && this.refusal === undefined) {
      try {
        this.checked = { folder: ensurePrivateDir(path.join(this.dir, 'manifests')), mac: cacheMac() };
      } catch (error) {
        this.refusal = `manifest cache off: ${(error as Error).message}`;
      }
    }
    return this.checked;
  }

  /**
   * The body of the entry in `file` when its MAC verifies, else undefined (missing, damaged or
   * forged). An entry is its MAC on the first line and the JSON body it covers after it, so the
   * body is parsed once, and only once it verified.
   */
  private verified(file: string, mac: CacheMac): StoredBody | undefined {
    const text = readPrivateFile(file);
    const newline = text?.indexOf('\n') ?? -1;
    if (text === undefined || newline < 0) return undefined;
    const body = text.slice(newline + 1);
    return mac.verify(body, text.slice(0, newline)) ? (JSON.parse(body) as StoredBody) : undefined;
  }

  /** The raw manifest cached for `key`, if present and authentic; the caller validates it again. */
  read(source: PluginSource, key: string): RawManifest | undefined {
    const open = this.open();
    if (open === undefined) return undefined;
    try {
      const body = this.verified(cacheFile(open.folder, source), open.mac);
      return body?.key === key && body.plugin === source.name && schemaLibrariesUnchanged(body.manifest)
        ? body.manifest
        : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The newest authentic manifest stored for a plugin named `name`, whatever its key: what
   * the plugin declared the last time it loaded here, for explaining it when it fails
   * (raw: the caller validates it before using it).
   */
  lastKnown(name: string): RawManifest | undefined {
    const open = this.open();
    if (open === undefined) return undefined;
    let newest: { mtime: number; manifest: RawManifest } | undefined;
    try {
      for (const file of readdirSync(open.folder)) {
        if (!file.startsWith(`${safeName(name)}-`) || !file.endsWith('.json')) continue;
        const full = path.join(open.folder, file);
        let body: StoredBody | undefined;
        try {
          body = this.verified(full, open.mac);
        } catch {
          continue;
        }
        const mtime = statSync(full).mtimeMs;
        if (body?.plugin === name && body.manifest && (!newest || mtime > newest.mtime))
          newest = { mtime, manifest: body.manifest };
      }
    } catch {
      // An unreadable folder: nothing is known.
    }
    return newest?.manifest;
  }

  /** Stores a raw manifest with its MAC, atomically (an exclusively created temp file, then a rename). */
  write(source: PluginSource, key: string, manifest: RawManifest): void {
    const open = this.open();
    if (open === undefined) return;
    try {
      const body = JSON.stringify({ key, plugin: source.name, version: source.version, manifest } satisfies StoredBody);
      writePrivateFile(cacheFile(open.folder, source), `${open.mac.sign(body)}\n${body}`);
    } catch {
      // Read-only or full disk: the host still works, only slower next start.
    }
  }
}
