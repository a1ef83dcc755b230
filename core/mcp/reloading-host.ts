/**
 * A ToolHost whose underlying host can be replaced while clients stay
 * connected (`serve --watch`). A reload opens a complete new host (config
 * re-read, manifests re-extracted where a plugin's files changed, new pools),
 * swaps it in, bumps the generation and emits 'change' so every MCP session
 * sends list_changed. The old host finishes the calls it is running, then closes.
 */
import { HostEmitter, type HostEvents } from '../events.js';
import type { ToolHost } from '../host.js';

/** A host that can swap itself for a freshly opened one. */
export interface ReloadingHost extends ToolHost {
  /** opens a new host and swaps it in; on failure the current host stays and the error is thrown */
  reload(): Promise<void>;
}

const FORWARDED = ['warning', 'log'] as const;

/** Wraps `initial`; `open` makes the replacement on each reload. */
export function createReloadingHost(initial: ToolHost, open: () => Promise<ToolHost>): ReloadingHost {
  const emitter = new HostEmitter();
  let current = initial;
  let generation = 0;
  let closed = false;
  const inFlight = new Map<ToolHost, { count: number; idle?: () => void }>();

  const forward = {
    change: () => emitter.emit('change', ++generation),
    warning: (message: string) => emitter.emit('warning', message),
    log: (entry: HostEvents['log'][0]) => emitter.emit('log', entry),
  };
  const attach = (host: ToolHost) => {
    host.on('change', forward.change);
    for (const event of FORWARDED) host.on(event, forward[event] as never);
  };
  const detach = (host: ToolHost) => {
    host.off('change', forward.change);
    for (const event of FORWARDED) host.off(event, forward[event] as never);
  };
  attach(current);

  /** Runs `fn` on the current host, counted so a swapped-out host closes only when idle. */
  async function tracked<T>(fn: (host: ToolHost) => Promise<T>): Promise<T> {
    const host = current;
    const entry = inFlight.get(host) ?? { count: 0 };
    inFlight.set(host, entry);
    entry.count++;
    try {
      return await fn(host);
    } finally {
      entry.count--;
      if (entry.count === 0) entry.idle?.();
    }
  }

  async function retire(host: ToolHost): Promise<void> {
    detach(host);
    const entry = inFlight.get(host);
    if (entry && entry.count > 0) await new Promise<void>((resolve) => (entry.idle = resolve));
    inFlight.delete(host);
    await host.close();
  }

  let reloading: Promise<void> = Promise.resolve();
  const facade: ReloadingHost = {
    get config() {
      return current.config;
    },
    definitions: (options) => current.definitions(options),
    dispatch: (name, args, options) => tracked((host) => host.dispatch(name, args, options)),
    call: (name, args, options) => tracked((host) => host.call(name, args, options)),
    explain: () => current.explain(),
    refresh: () => current.refresh(),
    invalidateChecks: () => current.invalidateChecks(),
    on(event, listener) {
      emitter.on(event, listener as never);
      return facade;
    },
    off(event, listener) {
      emitter.off(event, listener as never);
      return facade;
    },
    reload() {
      // One reload at a time: a burst of file events must not open hosts in parallel.
      reloading = reloading.catch(() => {}).then(async () => {
        if (closed) return;
        const next = await open();
        if (closed) return void (await next.close());
        const previous = current;
        current = next;
        attach(next);
        await next.refresh();
        emitter.emit('change', ++generation);
        // Closing the old host is best effort: a pool that fails to stop must not fail the reload that replaced it.
        retire(previous).catch(() => {});
      });
      return reloading;
    },
    async close() {
      if (closed) return;
      closed = true;
      await reloading.catch(() => {});
      detach(current);
      await current.close();
      emitter.removeAllListeners();
    },
  };
  return facade;
}
