/**
 * Which thread pool a trusted plugin runs in, and why. A shared worker keeps
 * each task's env grant apart, but not module state (a dependency loaded once
 * per worker) nor listeners left on something shared: a plugin whose env grant
 * carries variables therefore gets a small pool of its own unless its config
 * entry says `pool: 'shared'`; `pool: 'own'` gives any plugin one.
 *
 * A plugin whose calls spend their time waiting on a child process (the
 * first-party terminal: its handler only awaits the command) gets a pool of its
 * own that runs several of its calls per thread, so a long command holds neither
 * a thread of the shared pool nor the only thread of its own.
 */
import type { PoolPlacement } from '../runners/runner.js';
import type { ResolvedConfig } from '../config/config.js';
import type { PluginSource } from './types.js';

/**
 * Most threads of a pool a plugin gets because it holds env grants (an explicit `pool: 'own'` gets `limits.threads`).
 */
const GRANT_POOL_THREADS = 2;

/** Calls one thread runs at once in the pool of a plugin whose calls wait on child processes. */
const WAITING_TASKS_PER_THREAD = 8;

/** The `pool` setting of each config entry that has one, by the package it names. */
export function poolSettings(config: ResolvedConfig): Map<string, 'shared' | 'own'> {
  const settings = new Map<string, 'shared' | 'own'>();
  for (const entry of config.plugins)
    if (typeof entry === 'object' && entry.pool) settings.set(entry.package, entry.pool);
  return settings;
}

/**
 * The pool of one trusted plugin. `env` is the grant its tasks receive (only the variables
 * set in the host's env), `setting` its entry's `pool`, `threads` the config's limits.threads,
 * `waits` whether its calls wait on child processes (first-party terminal). `tasksPerThread`:
 * calls one thread of its pool runs at once.
 */
export function choosePool(
  env: Readonly<Record<string, string>>,
  setting: 'shared' | 'own' | undefined,
  threads: number,
  waits = false,
): PoolPlacement & { threads: number; tasksPerThread: number } {
  const held = Object.keys(env).sort();
  const holds = held.length ? `it holds env grants (${held.join(', ')})` : '';
  const perThread = WAITING_TASKS_PER_THREAD;
  const waiting = `its calls wait on child processes, so each thread runs up to ${perThread} of them at once`;
  if (setting === 'own')
    return {
      kind: 'own',
      reason: `pool: 'own' in its config entry${waits ? `; ${waiting}` : ''}`,
      threads,
      tasksPerThread: waits ? WAITING_TASKS_PER_THREAD : 1,
    };
  if (setting === 'shared')
    return {
      kind: 'shared',
      reason: `pool: 'shared' in its config entry${holds ? `, though ${holds}` : ''}`,
      threads,
      tasksPerThread: 1,
    };
  if (waits)
    return {
      kind: 'own',
      reason: holds ? `${holds}; ${waiting}` : waiting,
      threads: Math.min(GRANT_POOL_THREADS, threads),
      tasksPerThread: WAITING_TASKS_PER_THREAD,
    };
  if (holds) return { kind: 'own', reason: holds, threads: Math.min(GRANT_POOL_THREADS, threads), tasksPerThread: 1 };
  return { kind: 'shared', reason: 'it holds no env grants', threads, tasksPerThread: 1 };
}

/** The setting that applies to `source`: a config entry naming a builtin's package configures that builtin. */
export function poolSettingOf(
  settings: ReadonlyMap<string, 'shared' | 'own'>,
  source: PluginSource,
): 'shared' | 'own' | undefined {
  return settings.get(source.specifier) ?? settings.get(source.name);
}
