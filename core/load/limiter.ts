/**
 * Bounded parallelism for loading: at most `n` tasks run at once, the rest
 * wait their turn in order. Manifest extraction goes through one of these so
 * that any number of plugins load, whatever the pools' queue limits are.
 */

/** Runs tasks `n` at a time. */
type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/** A limiter of `n` concurrent tasks (first come, first served). */
export function limiter(n: number): Limiter {
  const waiting: Array<() => void> = [];
  let running = 0;
  const next = () => {
    running--;
    waiting.shift()?.();
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      next();
    }
  };
}
