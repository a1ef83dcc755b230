/**
 * Where the manifest cache lives: the user's own cache folder, never the workspace.
 * What the model's tools can write (the workspace root, any `fsWrite` grant) cannot
 * hold a cache the host reads back, so a configured `cache.dir` inside one of those
 * is refused with a warning and the user's folder is used instead. Never at the
 * filesystem root, where an MCP client that starts the server with cwd `/` would
 * otherwise have it write.
 */
import { userCacheDir } from '../state/user-dirs.js';
import { insideAnyReally } from './writable-roots.js';

/**
 * The cache folder to use for a configured `dir` (absolute) given the folders the model's
 * tools can write: `dir` itself, or the default with the reason `dir` was refused.
 */
export function chooseCacheDir(
  dir: string | undefined,
  writable: readonly string[],
): { dir: string | undefined; refused?: string } {
  // No safe default (no home folder): undefined, and the host extracts manifests every start.
  if (dir === undefined) return { dir: userCacheDir() };
  const inside = insideAnyReally(dir, writable);
  if (inside === undefined) return { dir };
  return {
    dir: userCacheDir(),
    refused:
      `cache.dir ${dir} is not used: it lies inside ${inside}, which the model's tools can write, and a cache ` +
      `there could be planted; using the user's cache folder instead`,
  };
}
