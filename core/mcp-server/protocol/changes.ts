/**
 * Where an MCP server hears that its tool list may have changed: the host's 'change' (the
 * exposure moved, every session's list) and 'loaded' (a tool_search loaded tools into one
 * session). A server listens to the host itself (stdio's one connection), or many servers share
 * one host listener (HTTP's sessions and per-request servers).
 */
import type { ToolHost } from '../../host/host.js';
import type { HostEvents } from '../../host/events.js';

/**
 * Why a tool list may have changed: the exposure moved (every session's), or a tool_search loaded tools into one
 * session.
 */
export type ToolListEvent = { kind: 'change' } | { kind: 'loaded'; sessionId: string | undefined };

/** Where a server hears that the tool list changed: subscribe a listener, get its unsubscribe. */
export type ChangeSource = (listener: (event: ToolListEvent) => void) => () => void;

/** Subscribes `emit` to the host's 'change' and 'loaded' events; returns the function that unsubscribes. */
function listenToHost(host: ToolHost, emit: (event: ToolListEvent) => void): () => void {
  const onChange = () => emit({ kind: 'change' });
  const onLoaded = (entry: HostEvents['loaded'][0]) => emit({ kind: 'loaded', sessionId: entry.sessionId });
  host.on('change', onChange);
  host.on('loaded', onLoaded);
  return () => {
    host.off('change', onChange);
    host.off('loaded', onLoaded);
  };
}

/** The host's own events, listened to once per server (fine for stdio's single connection). */
export function hostChanges(host: ToolHost): ChangeSource {
  return (listener) => listenToHost(host, listener);
}

/** A change source for servers made per request: they live for one exchange and never send list_changed themselves. */
export const NO_CHANGES: ChangeSource = () => () => {};

/**
 * One host listener fanned out to any number of servers, so many sessions
 * add no listeners to the host (and cannot trip its MaxListeners warning).
 * `dispose` removes the host listener.
 */
export function sharedChanges(host: ToolHost): { source: ChangeSource; dispose(): void; readonly listeners: number } {
  const listeners = new Set<(event: ToolListEvent) => void>();
  const fanOut = (event: ToolListEvent) => {
    for (const listener of listeners) listener(event);
  };
  const unlisten = listenToHost(host, fanOut);
  return {
    source: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    dispose: () => {
      unlisten();
      listeners.clear();
    },
    get listeners() {
      return listeners.size;
    },
  };
}
