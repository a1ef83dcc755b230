/**
 * Where a module named in config resolves: a path relative to the config's
 * folder, or a package name resolved from there. Hooks modules are imported
 * from it (core/call/hook-modules.ts), and protected as the file it names.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolve as resolveModule } from 'import-meta-resolve';

/** The module's URL: a path relative to the config's folder, or a package name resolved from there. */
export function moduleUrl(specifier: string, dir: string): string {
  if (specifier.startsWith('.') || path.isAbsolute(specifier)) return pathToFileURL(path.resolve(dir, specifier)).href;
  return resolveModule(specifier, pathToFileURL(path.join(dir, 'noop.js')).href);
}
