/**
 * Where a call's `ctx.session` lives. The key in the state store is made here, from the call's
 * session id (or, for a call without one, an id of its own) and the plugin whose handler runs:
 * whatever key plugin code passes is only a field of that map, so it can reach neither another
 * plugin's values nor another session's. The rules (limits, expiry) are boundary/session-state.ts.
 */
import { randomUUID } from 'node:crypto';
import { sessionOperation } from '../../boundary/session-state.js';
import type { SessionAnswer, SessionRequest } from '../../boundary/protocol.js';
import type { StateStore } from '../state/store-contract.js';

/** How long a state store operation may take before ctx.session gives up on it. */
const STORE_DEADLINE_MS = 5_000;

/**
 * The state of one session, or of one call without a session id and the calls it makes through
 * ctx.callTool (nested calls carry their caller's scope). A call's own scope is emptied when
 * that call ends (`end`), and never shared: its id is random and made only when first used.
 */
export class StateScope {
  private id: string | undefined;
  /** plugins that wrote in a call's own scope, whose maps `end` removes */
  private readonly writers = new Set<string>();

  constructor(private readonly sessionId: string | undefined) {}

  /** The store key of `plugin`'s map in this scope. */
  mapKey(plugin: string): string {
    this.id ??= this.sessionId !== undefined ? `session:${encodeURIComponent(this.sessionId)}` : `call:${randomUUID()}`;
    return `plugin-state:${this.id}:${encodeURIComponent(plugin)}`;
  }

  /** Notes a write by `plugin`, so a call's own scope is emptied when the call ends. */
  wrote(plugin: string): void {
    if (this.sessionId === undefined) this.writers.add(plugin);
  }

  /** Whether `end` has anything to remove. */
  get written(): boolean {
    return this.writers.size > 0;
  }

  /** Removes what a call without a session id kept (nothing for a session's scope, which lives on). */
  async end(store: StateStore): Promise<void> {
    const plugins = [...this.writers];
    this.writers.clear();
    await Promise.allSettled(plugins.map((plugin) => store.delete(this.mapKey(plugin))));
  }
}

/** The hook behind ctx.session for a call of `plugin` in `scope`. */
export function sessionHook(
  store: StateStore,
  scope: StateScope,
  plugin: string,
  maxTtlMs: number,
): (request: SessionRequest) => Promise<SessionAnswer> {
  return async (request) => {
    const mapKey = scope.mapKey(plugin);
    if (request.op === 'set') scope.wrote(plugin);
    try {
      return await withDeadline(sessionOperation({ maps: store, mapKey, maxTtlMs, now: Date.now }, request));
    } catch (error) {
      return {
        ok: false,
        code: 'STATE_UNAVAILABLE',
        message: `ctx.session: the state store could not ${request.op} '${request.key}': ${(error as Error).message}`,
      };
    }
  };
}

/**
 * `operation`, or a rejection once STORE_DEADLINE_MS have passed (a store that never answers must not hold the call).
 */
function withDeadline<T>(operation: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${STORE_DEADLINE_MS} ms`)), STORE_DEADLINE_MS);
  });
  return Promise.race([operation, deadline]).finally(() => clearTimeout(timer));
}
