/**
 * A ToolHost whose underlying host can be replaced while clients stay
 * connected (`serve --watch`). A reload opens a complete new host (config
 * re-read, manifests re-extracted where a plugin's files changed, new pools),
 * swaps it in, bumps the generation and emits 'change' so every MCP session
 * sends list_changed. The old host finishes the calls it is running, then
 * closes. Hooks added with `use()`, views made with `view()`, `call`
 * listeners and the console's approvers follow every swap.
 */
import { HostEmitter, type HostEvents } from './events.js';
import { delegatingInspector, inspectorOf, registerInspector } from './inspector.js';
import { forwardingHost } from './forward.js';
import type { Approver } from '../call/approval.js';
import type { ToolHooks } from '../call/hooks.js';
import type { ToolHost } from './tool-host.js';

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

/** Calls under way on each host, so a swapped-out host closes only when idle. */
export class InFlight {
  private readonly hosts = new Map<ToolHost, { count: number; idle?: () => void }>();

  /** Runs `fn` on `host`, counted. */
  async run<T>(host: ToolHost, fn: (host: ToolHost) => Promise<T>): Promise<T> {
    const entry = this.hosts.get(host) ?? { count: 0 };
    this.hosts.set(host, entry);
    entry.count++;
    try {
      return await fn(host);
    } finally {
      entry.count--;
      if (entry.count === 0) entry.idle?.();
    }
  }

  /** Resolves once `host` runs no call, and forgets it. */
  async idle(host: ToolHost): Promise<void> {
    const entry = this.hosts.get(host);
    if (entry && entry.count > 0) await new Promise<void>((resolve) => (entry.idle = resolve));
    this.hosts.delete(host);
  }
}

/** What follows the current host across swaps: its events, hooks and approvers added through the stand-in. */
class Followers {
  readonly emitter = new HostEmitter();
  generation = 0;
  readonly hooks = new Map<ToolHooks, () => void>();
  /** approvers added through the inspector (the console), each with its removal from the current host */
  readonly approvers = new Map<Approver, () => void>();
  private readonly forward = {
    change: () => this.emitter.emit('change', ++this.generation),
    warning: (message: string) => this.emitter.emit('warning', message),
    log: (entry: HostEvents['log'][0]) => this.emitter.emit('log', entry),
    loaded: (entry: HostEvents['loaded'][0]) => this.emitter.emit('loaded', entry),
    'definition-changed': (change: HostEvents['definition-changed'][0]) =>
      this.emitter.emit('definition-changed', change),
  };
  // A host records its calls only while someone listens: forwarded only while this one has listeners.
  readonly forwardCall = (record: HostEvents['call'][0]) => this.emitter.emit('call', record);

  attach(host: ToolHost): void {
    host.on('change', this.forward.change);
    for (const event of FORWARDED) host.on(event, this.forward[event] as never);
    if (this.emitter.listenerCount('call') > 0) host.on('call', this.forwardCall);
    for (const hook of this.hooks.keys()) this.hooks.set(hook, host.use(hook));
    for (const approver of this.approvers.keys()) this.approvers.set(approver, inspectorOf(host).addApprover(approver));
  }

  /** Keeps `item` (a hook, an approver) with its removal from the current host; returns its removal for good. */
  follow<T>(items: Map<T, () => void>, item: T, removal: () => void): () => void {
    items.set(item, removal);
    return () => {
      items.get(item)?.();
      items.delete(item);
    };
  }

  detach(host: ToolHost): void {
    host.off('change', this.forward.change);
    for (const event of FORWARDED) host.off(event, this.forward[event] as never);
    host.off('call', this.forwardCall);
  }
}

/** A view (or identity view) that follows every reload: its stand-in, and how to make it from the next host. */
interface FollowingView {
  view: Delegate;
  make(host: ToolHost): ToolHost;
}

/** The host a stand-in forwards to now, and what follows it from one host to the next. */
class Swapping {
  current: ToolHost;
  readonly followers = new Followers();
  readonly inFlight = new InFlight();
  /** views and identity views, each remade from the next host on a reload */
  readonly views = new Set<FollowingView>();
  private closed = false;

  constructor(initial: ToolHost) {
    this.current = initial;
    this.followers.attach(initial);
  }

  /** Makes `next` current: hooks and views move to it, 'change' is emitted, the previous one closes when idle. */
  async swap(next: ToolHost): Promise<void> {
    const { followers } = this;
    const previous = this.current;
    this.current = next;
    followers.attach(next);
    await next.refresh();
    for (const entry of this.views) {
      // A view whose names no longer exist after the reload keeps its old (now closed) host and says why.
      try {
        await entry.view.swap(entry.make(next));
      } catch (error) {
        followers.emitter.emit('warning', `a view could not follow the reload: ${(error as Error).message}`);
      }
    }
    followers.emitter.emit('change', ++followers.generation);
    // Closing the old host is best effort: a pool that fails to stop must not fail the reload that replaced it.
    this.retire(previous).catch(() => {});
  }

  /** Closes the current host, once; `onClose` first (a reload under way ends). */
  async close(onClose: () => Promise<void>): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await onClose();
    this.followers.detach(this.current);
    await this.current.close();
    this.followers.emitter.removeAllListeners();
  }

  private async retire(host: ToolHost): Promise<void> {
    this.followers.detach(host);
    await this.inFlight.idle(host);
    await host.close();
  }
}

/** A stand-in for `initial` that can swap it; `onClose` runs first when it closes. */
function delegate(initial: ToolHost, onClose: () => Promise<void>): Delegate {
  const state = new Swapping(initial);
  const { followers, inFlight } = state;
  const { emitter } = followers;
  /** A view (or identity view) of the current host that follows every reload. */
  const derived = (make: (host: ToolHost) => ToolHost): Delegate => {
    const entry: FollowingView = { make, view: undefined as unknown as Delegate };
    entry.view = delegate(make(state.current), async () => void state.views.delete(entry));
    state.views.add(entry);
    return entry.view;
  };
  const facade: Delegate = forwardingHost<Delegate>(
    {
      now: () => state.current,
      // Only calls are counted: they are what a swapped-out host must finish before it closes.
      later: (member, use) =>
        member === 'call' || member === 'dispatch' ? inFlight.run(state.current, use) : use(state.current),
    },
    {
      on(event, listener) {
        if (event === 'call' && emitter.listenerCount('call') === 0) state.current.on('call', followers.forwardCall);
        emitter.on(event, listener as never);
        return facade;
      },
      off(event, listener) {
        emitter.off(event, listener as never);
        if (event === 'call' && emitter.listenerCount('call') === 0) state.current.off('call', followers.forwardCall);
        return facade;
      },
      use: (hook) => followers.follow(followers.hooks, hook, state.current.use(hook)),
      view: (options) => derived((host) => host.view(options)),
      as: (identity) => derived((host) => host.as(identity)),
      swap: (next) => state.swap(next),
      close: () => state.close(onClose),
    },
  );
  registerInspector(facade, {
    ...delegatingInspector(() => state.current),
    addApprover: (approver) =>
      followers.follow(followers.approvers, approver, inspectorOf(state.current).addApprover(approver)),
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
