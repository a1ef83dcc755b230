/**
 * The pins of a trusted plugin, taken as the host loads it (before its manifest is
 * extracted, so the code described is the code pinned): its whole package folder, nested
 * dependencies it ships included. A bare module's folder may be a whole project, so only
 * its entry file is pinned then. Untrusted plugins are not pinned: they run in a sandboxed
 * child process and are not trusted for having been loaded.
 */
import { pinFiles, pinTree, type Pins } from '../../boundary/pins.js';
import type { PluginSource } from './types.js';

/** The pins of `source`'s files, or undefined for a plugin that is not pinned. */
export function pluginPins(source: PluginSource): Pins | undefined {
  if (source.trust === 'untrusted') return undefined;
  if (source.version === '0.0.0' && !source.builtin) return pinFiles([source.entry]);
  return pinTree(source.dir);
}
