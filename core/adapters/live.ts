/**
 * The live form of an adapter: the framework's tools, kept current in place
 * while the host's exposed set changes. The host emits `change` whenever a
 * recompute (a definitions(), dispatch() or refresh() call) finds a different
 * set; `update()` asks for that recompute now, e.g. before each model step.
 */
import type { ToolHost } from '../host/tool-host.js';

/** A framework's tools that follow the host. */
export interface LiveTools<T> {
  /** the framework's tools; the same object throughout, updated in place */
  readonly tools: T;
  /** re-reads the definitions now (checks whose cache expired run) and brings `tools` up to date */
  update(): Promise<T>;
  /** stops following the host */
  close(): void;
}

/** How one framework's tools are built and updated. */
export interface FollowSpec<D, T> {
  /** the host's current definitions (memoized by the host: the same array while nothing changed) */
  read(): Promise<readonly D[]>;
  /** the framework's tools for `defs` */
  build(defs: readonly D[]): T;
  /** makes `target` hold what `next` holds */
  apply(target: T, next: T): void;
}

/** Follows `host`: builds the tools once, then rebuilds them on every change. */
export async function follow<D, T>(host: ToolHost, spec: FollowSpec<D, T>): Promise<LiveTools<T>> {
  let seen = await spec.read();
  const tools = spec.build(seen);
  let queue: Promise<unknown> = Promise.resolve();
  const update = (): Promise<T> => {
    // One update at a time, so two changes in a row cannot apply out of order.
    const next = queue.then(async () => {
      const defs = await spec.read();
      if (defs !== seen) {
        seen = defs;
        spec.apply(tools, spec.build(defs));
      }
      return tools;
    });
    queue = next.catch(() => {});
    return next;
  };
  // A failed update on a change event is retried by the next one; update() callers see their own errors.
  const onChange = () => void update().catch(() => {});
  host.on('change', onChange);
  return { tools, update, close: () => void host.off('change', onChange) };
}

/** `apply` for frameworks that take an array of tools. */
export function replaceArray<E>(target: E[], next: E[]): void {
  target.splice(0, target.length, ...next);
}

/** `apply` for frameworks that take a record of tools by name. */
export function replaceRecord<E>(target: Record<string, E>, next: Record<string, E>): void {
  for (const name of Object.keys(target)) if (!(name in next)) delete target[name];
  Object.assign(target, next);
}
