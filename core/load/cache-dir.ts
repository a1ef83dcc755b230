/**
 * Where the manifest cache lives when the config does not say: under the
 * workspace root's `node_modules/.cache` when that folder already exists
 * (the convention build tools share), otherwise in the user's own cache
 * folder. Never at the filesystem root, where an MCP client that starts the
 * server with cwd `/` would otherwise have it write.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import envPaths from 'env-paths';

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `dir` is `/` (or a drive root) or directly inside it. */
function atFilesystemRoot(dir: string): boolean {
  const parent = path.dirname(dir);
  return dir === parent || path.dirname(parent) === parent;
}

/**
 * The default manifest cache folder for `root`, or undefined when there is no
 * safe place (no home folder): the host then extracts manifests every start.
 */
export function defaultCacheDir(root: string): string | undefined {
  const local = path.join(root, 'node_modules', '.cache');
  if (!atFilesystemRoot(root) && existsSync(local) && isDirectory(local)) return path.join(local, 'toolshed');
  // env-paths follows XDG_CACHE_HOME on Linux, ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows.
  const user = envPaths('toolshed', { suffix: '' }).cache;
  if (!path.isAbsolute(user) || atFilesystemRoot(path.dirname(user))) return undefined;
  return user;
}
