/**
 * What a failed plugin is known to declare, so that its failure stays its own:
 * config that enables or includes its toolsets keeps working (they are known,
 * only unavailable), and explain lists its tools as hidden with its error.
 */
import path from 'node:path';
import { defaultToolset } from './discovery.js';
import { normalizeManifest } from './manifest.js';
import type { ManifestCache } from './manifest-cache.js';
import type { KnownContents } from './types.js';

/** A plugin's name as far as a specifier says: the package name, or a path's base name. */
function nameOf(name: string): string {
  if (name.startsWith('.') || path.isAbsolute(name) || name.startsWith('file:'))
    return path.basename(name).replace(/\.[cm]?[jt]s$/, '');
  return name;
}

/** The last manifest stored for `name`, validated as a fresh one would be (a cached one holds no trust). */
function lastManifest(name: string, cache: ManifestCache | undefined) {
  const raw = cache?.lastKnown(name);
  if (!raw) return undefined;
  try {
    return normalizeManifest(raw, { name }, { compileParameters: false });
  } catch {
    return undefined;
  }
}

/** The last manifest's toolsets and tools, or else only the default toolset of `name`. */
export function knownContents(name: string, cache: ManifestCache | undefined): KnownContents {
  const manifest = lastManifest(name, cache);
  if (manifest) {
    const toolsets = new Set([...Object.keys(manifest.toolsets), ...manifest.tools.map((t) => t.toolset)]);
    return {
      from: 'last-manifest',
      toolsets: [...toolsets],
      tools: manifest.tools.map((t) => ({ name: t.name, toolset: t.toolset })),
    };
  }
  return { from: 'name', toolsets: [defaultToolset({ name: nameOf(name) })], tools: [] };
}
