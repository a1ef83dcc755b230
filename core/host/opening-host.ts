/**
 * A host that is still opening, for `toolshed serve` over stdio: the MCP
 * server answers `initialize` at once, while the plugins load. What needs
 * the tools (`tools/list`, `tools/call`, refresh) waits until the host is
 * open; events are forwarded from then on. A host that fails to open fails
 * those requests with its error (and `serve` stops with it).
 */
import { HostEmitter } from './events.js';
import { delegatingInspector, inspectorOf, registerInspector } from './inspector.js';
import { forwardingHost } from './forward.js';
import type { ToolHost } from './tool-host.js';
import { systemClock } from '../state/clock.js';
import type { Clock } from '../state/clock.js';

const FORWARDED = ['change', 'warning', 'log', 'loaded', 'definition-changed'] as const;

/** A ToolHost over a host being opened; `ready` settles when it is open (or failed). */
export interface OpeningHost extends ToolHost {
  readonly ready: Promise<ToolHost>;
}

/**
 * Wraps `opening`: async methods wait for it, synchronous ones need it open; `clock` is the host's until it is open.
 */
export function openingHost(opening: Promise<ToolHost>, clock: Clock = systemClock): OpeningHost {
  const emitter = new HostEmitter();
  let inner: ToolHost | undefined;
  const ready = opening.then((host) => {
    inner = host;
    for (const event of FORWARDED)
      host.on(event, ((...args: unknown[]) => emitter.emit(event, ...(args as never))) as never);
    return host;
  });
  // A failure is the caller's to report (serve awaits `ready`); requests see it when they ask.
  ready.catch(() => {});
  const open = (): ToolHost => {
    if (!inner) throw new Error('the host is still opening');
    return inner;
  };
  const facade: OpeningHost = forwardingHost<OpeningHost>(
    { now: open, later: async (_member, use) => use(await ready) },
    {
      ready,
      get clock() {
        return inner?.clock ?? clock;
      },
      on(event, listener) {
        emitter.on(event, listener as never);
        return facade;
      },
      off(event, listener) {
        emitter.off(event, listener as never);
        return facade;
      },
      async close() {
        emitter.removeAllListeners();
        const host = await ready.catch(() => undefined);
        await host?.close();
      },
    },
  );
  registerInspector(facade, {
    ...delegatingInspector(open),
    // A refusal while the host opens is written once it is open (none when it fails to open).
    recordRefusal: (refusal) =>
      void ready.then(
        (host) => inspectorOf(host).recordRefusal(refusal),
        () => {},
      ),
  });
  return facade;
}

/** The host once it is open: an opening host's `ready`, any other host at once. */
export function whenOpen(host: ToolHost): Promise<ToolHost> {
  return isOpening(host) ? host.ready : Promise.resolve(host);
}

/** Whether `host` is still being opened behind an `openingHost`. */
export function isOpening(host: ToolHost): host is OpeningHost {
  return 'ready' in host;
}
