/**
 * The user's own folders for toolshed: state (trust records, the manifest cache's key)
 * and cache (the manifest cache). Both live outside every workspace, so nothing the
 * model's tools can write is ever read back from them; both are per-user state in the
 * sense of private-dir.ts (created 0700 and checked on use).
 */
import os from 'node:os';
import path from 'node:path';
import envPaths from 'env-paths';

const paths = () => envPaths('toolshed', { suffix: '' });

/** Whether `dir` is `/` (or a drive root) or directly inside it: never a place for per-user state. */
function nearFilesystemRoot(dir: string): boolean {
  const parent = path.dirname(dir);
  return dir === parent || path.dirname(parent) === parent;
}

/**
 * The user's state folder: `$XDG_STATE_HOME/toolshed` (default `~/.local/state/toolshed`) on
 * Linux, the data folder elsewhere; undefined when there is no safe place (no home folder).
 */
export function userStateDir(env: Record<string, string | undefined> = process.env): string | undefined {
  const dir =
    process.platform === 'linux'
      ? path.join(
          env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME)
            ? env.XDG_STATE_HOME
            : path.join(os.homedir(), '.local', 'state'),
          'toolshed',
        )
      : paths().data;
  return path.isAbsolute(dir) && !nearFilesystemRoot(path.dirname(dir)) ? dir : undefined;
}

/**
 * The user's cache folder (`$XDG_CACHE_HOME/toolshed`, `~/Library/Caches/toolshed`, `%LOCALAPPDATA%\toolshed\Cache`),
 * or undefined when there is no safe place.
 */
export function userCacheDir(): string | undefined {
  const dir = paths().cache;
  return path.isAbsolute(dir) && !nearFilesystemRoot(path.dirname(dir)) ? dir : undefined;
}
