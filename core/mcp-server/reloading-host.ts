/**
 * A ToolHost whose underlying host can be replaced while clients stay
 * connected (`serve --watch`). A reload opens a complete new host (config
 * re-read, manifests re-extracted where a plugin's files changed, new pools),
 * swaps it in, bumps the generation and emits 'change' so every MCP session
 * sends list_changed. The old host finishes the calls it is running, then
 * closes. Hooks added with `use()`, views made with `view()`, `call`
 * listeners and the console's approvers follow every swap.
 */
import { HostEmitter, type HostEvents } from '../host/events.js';
import { inspectorOf, registerInspector } from '../host/inspector.js';
import type { Approver } from '../call/approval.js';
import type { ToolHooks } from '../call/hooks.js';
import type { ToolHost } from '../host/tool-host.js';

/** A host that can swap itself for a freshly opened one. */
export interface ReloadingHost extends ToolHost {
  /** opens a new host and swaps it in; on failure the current host stays and the error is thrown */
  reload(): Promise<void>;
}

const FORWARDED = ['warning', 'log', 'loaded', 'definition-changed'] as const;

/** A ToolHost that delegates to whichever inner host is current, and can swap it. */
interface Delegate extends ToolHost {
  /** makes `next` current: hooks and views move to it, 'change' is emitted, the previous one closes when idle */
  swap(next: ToolHost): Promise<void>;
}

function delegate(initial: ToolHost, onClose: () => Promise<void>): Delegate {
  const emitter = new HostEmitter();
  let current = initial;
  let generation = 0;
  let closed = false;
  const inFlight = new Map<ToolHost, { count: number; idle?: () => void }>();
  const hooks = new Map<ToolHooks, () => void>();
  // Approvers added through the inspector (the console), each with its removal from the current host.
  const approvers = new Map<Approver, () => void>();
  // Views and identity views, each remade from the next host on a reload.
  const views = new Set<{ view: Delegate; make: (host: ToolHost) => ToolHost }>();

  const forward = {
    change: () => emitter.emit('change', ++generation),
    warning: (message: string) => emitter.emit('warning', message),
    log: (entry: HostEvents['log'][0]) => emitter.emit('log', entry),
    loaded: (entry: HostEvents['loaded'][0]) => emitter.emit('loaded', entry),
    'definition-changed': (change: HostEvents['definition-changed'][0]) => emitter.emit('definition-changed', change),
  };
  // A host records its calls only while someone listens: forwarded only while this one has listeners.
  const forwardCall = (record: HostEvents['call'][0]) => emitter.emit('call', record);
  const attach = (host: ToolHost) => {
    host.on('change', forward.change);
    for (const event of FORWARDED) host.on(event, forward[event] as never);
    if (emitter.listenerCount('call') > 0) host.on('call', forwardCall);
    for (const hook of hooks.keys()) hooks.set(hook, host.use(hook));
    for (const approver of approvers.keys()) approvers.set(approver, inspectorOf(host).addApprover(approver));
  };
  const detach = (host: ToolHost) => {
    host.off('change', forward.change);
    for (const event of FORWARDED) host.off(event, forward[event] as never);
    host.off('call', forwardCall);
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

  /** A view (or identity view) of the current host that follows every reload. */
  function derived(make: (host: ToolHost) => ToolHost): Delegate {
    const entry = { make, view: undefined as unknown as Delegate };
    entry.view = delegate(make(current), async () => void views.delete(entry));
    views.add(entry);
    return entry.view;
  }

  const facade: Delegate = {
    get config() {
      return current.config;
    },
    get state() {
      return current.state;
    },
    get clock() {
      return current.clock;
    },
    definitions: (options) => current.definitions(options),
    dispatch: (name, args, options) => tracked((host) => host.dispatch(name, args, options)),
    call: (name, args, options) => tracked((host) => host.call(name, args, options)),
    explain: () => current.explain(),
    refresh: () => current.refresh(),
    invalidateChecks: () => current.invalidateChecks(),
    acceptDefinitions: (request) => current.acceptDefinitions(request),
    on(event, listener) {
      if (event === 'call' && emitter.listenerCount('call') === 0) current.on('call', forwardCall);
      emitter.on(event, listener as never);
      return facade;
    },
    off(event, listener) {
      emitter.off(event, listener as never);
      if (event === 'call' && emitter.listenerCount('call') === 0) current.off('call', forwardCall);
      return facade;
    },
    use(hook) {
      hooks.set(hook, current.use(hook));
      return () => {
        hooks.get(hook)?.();
        hooks.delete(hook);
      };
    },
    view: (options) => derived((host) => host.view(options)),
    as: (identity) => derived((host) => host.as(identity)),
    recordRefusal: (refusal) => current.recordRefusal(refusal),
    async swap(next) {
      const previous = current;
      current = next;
      attach(next);
      await next.refresh();
      for (const entry of views) {
        // A view whose names no longer exist after the reload keeps its old (now closed) host and says why.
        try {
          await entry.view.swap(entry.make(next));
        } catch (error) {
          emitter.emit('warning', `a view could not follow the reload: ${(error as Error).message}`);
        }
      }
      emitter.emit('change', ++generation);
      // Closing the old host is best effort: a pool that fails to stop must not fail the reload that replaced it.
      retire(previous).catch(() => {});
    },
    async close() {
      if (closed) return;
      closed = true;
      await onClose();
      detach(current);
      await current.close();
      emitter.removeAllListeners();
    },
  };
  registerInspector(facade, {
    toolInfo: (name) => inspectorOf(current).toolInfo(name),
    search: (query, limit) => inspectorOf(current).search(query, limit),
    breakers: () => inspectorOf(current).breakers(),
    addApprover(approver) {
      approvers.set(approver, inspectorOf(current).addApprover(approver));
      return () => {
        approvers.get(approver)?.();
        approvers.delete(approver);
      };
    },
  });
  return facade;
}

/** Wraps `initial`; `open` makes the replacement on each reload. */
export function createReloadingHost(initial: ToolHost, open: () => Promise<ToolHost>): ReloadingHost {
  let closed = false;
  let reloading: Promise<void> = Promise.resolve();
  const inner = delegate(initial, async () => {
    closed = true;
    await reloading.catch(() => {});
  });
  const facade = inner as Delegate & ReloadingHost;
  facade.reload = () => {
    // One reload at a time: a burst of file events must not open hosts in parallel.
    reloading = reloading
      .catch(() => {})
      .then(async () => {
        if (closed) return;
        const next = await open();
        if (closed) return void (await next.close());
        await inner.swap(next);
      });
    return reloading;
  };
  return facade;
}
