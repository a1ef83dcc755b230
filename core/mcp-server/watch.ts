/**
 * What `serve --watch` watches: the config file and the folder of every
 * configured plugin (builtins are part of toolshed, not watched). Events are
 * debounced, since an editor's save or an npm install is a burst of them.
 */
import { statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { resolvePlugin } from '../load/discovery.js';
import { insideAny } from '../config/writable-roots.js';
import { realOrResolved } from '../../boundary/launch/paths.js';
import type { ResolvedConfig } from '../config/config.js';
import { debounced, systemClock } from '../state/clock.js';
import type { Clock } from '../state/clock.js';

/** Quiet time after the last file event before a reload starts. */
const DEBOUNCE_MS = 200;

/** Files and folders whose changes call for a reload. */
export function watchedPaths(config: ResolvedConfig): string[] {
  const paths = new Set<string>();
  if (config.file) paths.add(config.file);
  for (const entry of config.plugins) {
    try {
      paths.add(resolvePlugin(entry, config.dir).dir);
    } catch {
      // A plugin that does not resolve yet (not installed) is reported by the host; its folder appears later via the
      // config.
    }
  }
  return [...paths];
}

/** `paths` split by whether they lie inside one of the model-writable folders `writable`. */
export function splitWatched(
  paths: readonly string[],
  writable: readonly string[],
): { outside: string[]; writable: string[] } {
  const inside = (p: string) => insideAny(realOrResolved(p), writable) !== undefined;
  return { outside: paths.filter((p) => !inside(p)), writable: paths.filter(inside) };
}

/** Changes inside these never change a plugin's code: caches, dependencies, VCS data. */
function ignored(file: string | null): boolean {
  return file !== null && /(^|[\\/])(node_modules|\.git)([\\/]|$)/.test(file);
}

/** Calls `onChange` (debounced, by `clock`) when any of `paths` changes; returns the function that stops watching. */
export function watchPaths(
  paths: string[],
  onChange: () => void,
  onError: (error: unknown) => void = () => {},
  clock: Clock = systemClock,
): () => void {
  const debounce = debounced(clock, DEBOUNCE_MS, onChange);
  const fire = (file: string | null) => {
    if (ignored(file)) return;
    debounce.trigger();
  };
  const watchers: FSWatcher[] = [];
  for (const target of paths) {
    try {
      // A config file is watched through its folder: editors often replace the file, which ends a watch on the file
      // itself.
      const watcher = statSync(target).isFile()
        ? watch(path.dirname(target), (_event, name) => {
            if (name === path.basename(target)) fire(name);
          })
        : watch(target, { recursive: true }, (_event, name) => fire(name));
      watcher.on('error', onError);
      watchers.push(watcher);
    } catch (error) {
      onError(error);
    }
  }
  return () => {
    debounce.cancel();
    for (const watcher of watchers) watcher.close();
  };
}
