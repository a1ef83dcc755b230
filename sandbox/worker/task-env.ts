/**
 * Per-task environment in a worker that runs tasks of several plugins (the
 * shared thread pool). `process.env` becomes a view of the current task's own
 * copy of its plugin's grant, found through AsyncLocalStorage, so it follows
 * the task's callbacks and timers: a timer plugin A left behind reads A's
 * grant, not B's, while B's task runs in the same thread. It is the running
 * task's, though: a listener A left on an emitter B's code fires runs in B's
 * task and reads B's grant, and a module both import keeps whatever it copied
 * at import (so a plugin holding grants gets a pool of its own, see
 * core/load/pool-choice.ts). Outside any task it shows the worker's own
 * startup env (empty in the thread tier; the grants in a process-tier child).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const store = new AsyncLocalStorage<Record<string, string>>();
const startup: Record<string, string> = {};
for (const [key, value] of Object.entries(process.env)) if (value !== undefined) startup[key] = value;

const current = (): Record<string, string> => store.getStore() ?? startup;

const view = new Proxy(Object.create(null) as Record<string, string>, {
  get: (_, key) => (typeof key === 'string' && Object.hasOwn(current(), key) ? current()[key] : undefined),
  set: (_, key, value) => {
    if (typeof key === 'string') current()[key] = String(value);
    return true;
  },
  has: (_, key) => typeof key === 'string' && Object.hasOwn(current(), key),
  deleteProperty: (_, key) => {
    if (typeof key === 'string') delete current()[key];
    return true;
  },
  ownKeys: () => Object.keys(current()),
  getOwnPropertyDescriptor: (_, key) => {
    const env = current();
    return typeof key === 'string' && Object.hasOwn(env, key)
      ? { value: env[key], writable: true, enumerable: true, configurable: true }
      : undefined;
  },
  defineProperty: (_, key, descriptor) => {
    if (typeof key === 'string') current()[key] = String(descriptor.value);
    return true;
  },
});

// Not configurable: a plugin cannot swap process.env for every task in the thread.
Object.defineProperty(process, 'env', { get: () => view, enumerable: true, configurable: false });

/** The env a task sees: a copy of `grant` (writes stay in the task), or the worker's own. */
export function taskEnv(grant: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return grant ? { ...grant } : startup;
}

/** Runs `fn(arg)` (and everything it schedules) with `env` as `process.env`. */
export function withEnv<A, T>(env: Record<string, string>, fn: (arg: A) => T, arg: A): T {
  return store.run(env, fn, arg);
}
