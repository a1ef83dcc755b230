/**
 * Comlink's `expose` answers GET, SET, CONSTRUCT, ENDPOINT and RELEASE as well
 * as APPLY: handed to a worker as is, it lets the worker read and replace host
 * objects. The guard sits between the port and Comlink and passes only APPLY
 * messages whose path is one allow-listed method name with plain (RAW)
 * arguments; everything else is answered with a thrown error and never reaches
 * the exposed object.
 */
import { expose } from 'comlink/dist/esm/comlink.mjs';
import type { MessagePort } from 'node:worker_threads';

type Listener = (event: { data: unknown }) => void;

interface ComlinkMessage {
  id?: string;
  type?: unknown;
  path?: unknown;
  argumentList?: unknown;
}

/** Why the guard refused a message, or undefined when it passes. */
function refusal(data: unknown, allowed: ReadonlySet<string>): string | undefined {
  if (typeof data !== 'object' || data === null) return 'not a Comlink message';
  const message = data as ComlinkMessage;
  if (message.type !== 'APPLY') return `message type ${String(message.type)} is not allowed`;
  const path = message.path;
  if (!Array.isArray(path) || path.length !== 1 || typeof path[0] !== 'string')
    return 'only direct method calls are allowed';
  if (!allowed.has(path[0])) return `method ${JSON.stringify(path[0])} is not allowed`;
  const args = message.argumentList;
  if (!Array.isArray(args)) return 'argument list missing';
  for (const wire of args) {
    if (typeof wire !== 'object' || wire === null || (wire as { type?: unknown }).type !== 'RAW') {
      return 'only plain data arguments are allowed (no proxies or transfer handlers)';
    }
  }
  return undefined;
}

/** Counts of what the guard let through and refused, for explain and tests. */
export interface GuardStats {
  passed: number;
  refused: number;
  lastRefusal?: string;
}

/**
 * Exposes `api` on `port` through Comlink, admitting only calls of `methods`.
 * The exposed object has a null prototype and only those own methods.
 * Pass `stats` to share one tally between several ports.
 */
export function exposeGuarded(
  api: object,
  port: MessagePort,
  methods: readonly string[],
  stats: GuardStats = { passed: 0, refused: 0 },
): GuardStats {
  return exposeGuardedEndpoint(api, port, methods, stats);
}

/**
 * The smallest endpoint the guard needs: a `MessagePort`, or an adapter over
 * another channel (the process tier's framed pipe). `on`/`off` receive the
 * message data itself, as a MessagePort's 'message' event does.
 */
interface GuardEndpoint {
  postMessage(message: unknown, transfer?: readonly unknown[]): void;
  on(event: 'message', listener: (data: unknown) => void): unknown;
  off(event: 'message', listener: (data: unknown) => void): unknown;
  start?(): void;
}

/** `exposeGuarded` on any `GuardEndpoint`, with the same allow-list rules. */
export function exposeGuardedEndpoint(
  api: object,
  port: GuardEndpoint,
  methods: readonly string[],
  stats: GuardStats = { passed: 0, refused: 0 },
): GuardStats {
  const allowed = new Set(methods);
  const target = Object.create(null) as Record<string, unknown>;
  for (const name of methods) {
    const fn = (api as Record<string, unknown>)[name];
    if (typeof fn !== 'function') throw new TypeError(`exposeGuarded: ${name} is not a function`);
    target[name] = fn.bind(api);
  }
  Object.freeze(target);
  const wrapped = new Map<Listener, (data: unknown) => void>();

  const endpoint = {
    postMessage: (message: unknown, transfer?: unknown[]) => port.postMessage(message, transfer as never),
    addEventListener: (_type: string, listener: Listener) => {
      const onMessage = (data: unknown) => {
        const why = refusal(data, allowed);
        if (why === undefined) {
          stats.passed++;
          listener({ data });
          return;
        }
        stats.refused++;
        stats.lastRefusal = why;
        const id = typeof data === 'object' && data !== null ? (data as ComlinkMessage).id : undefined;
        if (id !== undefined) {
          // Same wire shape Comlink uses for a thrown error, so the caller's
          // promise rejects instead of hanging.
          port.postMessage({
            id,
            type: 'HANDLER',
            name: 'throw',
            value: { isError: true, value: { name: 'PermissionDenied', message: `RPC refused: ${why}` } },
          });
        }
      };
      wrapped.set(listener, onMessage);
      port.on('message', onMessage);
    },
    removeEventListener: (_type: string, listener: Listener) => {
      const onMessage = wrapped.get(listener);
      if (onMessage) port.off('message', onMessage);
      wrapped.delete(listener);
    },
    start: () => port.start?.(),
  };
  expose(target, endpoint as never);
  return stats;
}
