/**
 * The object a tier exposes (behind the guard) to its workers: each method
 * finds the running call by id and forwards to that call's hooks. Arguments
 * come from plugin code, so every one is coerced whatever type it claims.
 */
import type {
  CallAnswer,
  HandOff,
  HostRpc,
  CodeCallableTools,
  SessionAnswer,
  SessionRequest,
} from '../../boundary/protocol.js';
import type { CallHooks } from './runner.js';
import { logLevel } from '../../boundary/tool-context.js';

/**
 * The `HostRpc` of a runner whose running calls are `calls`; log lines are cut to `maxLogChars`.
 * `via` names the worker this RPC endpoint belongs to, so a nested call can run inline there;
 * `onHandOff` hears of each nested call handed back to that worker (its caller's call id, the
 * inline id and the call's whole dispatch).
 */
export function hostRpc(
  calls: { get(callId: string): CallHooks | undefined },
  maxLogChars = Infinity,
  via?: object,
  onHandOff?: (caller: string, id: number, dispatched: Promise<unknown>) => void,
): HostRpc {
  return {
    log(callId, message, level) {
      calls.get(String(callId))?.log?.(String(message).slice(0, maxLogChars), logLevel(level));
    },
    progress(callId, done, total) {
      calls
        .get(String(callId))
        ?.progress?.(Number(done), total === undefined || total === null ? undefined : Number(total));
    },
    async callTool(callId, name, args): Promise<CallAnswer> {
      const hooks = calls.get(String(callId));
      if (!hooks)
        return { ok: false, code: 'PERMISSION_DENIED', message: 'callTool is only available while a call is running' };
      if (!via) return hooks.callTool(String(name), args);
      // The answer is the call's outcome, or, once the host has gated it, the call itself handed
      // back to run in the calling worker (thread-pool.ts, runInline): one round trip, not two.
      const caller = String(callId);
      let handOff!: (run: HandOff) => void;
      const handedOff = new Promise<CallAnswer>((resolve) => {
        handOff = (run) => {
          onHandOff?.(caller, run.id, dispatched);
          resolve({ runHere: run as HandOff & { call: NonNullable<HandOff['call']> } });
        };
      });
      const dispatched: Promise<CallAnswer> = hooks.callTool(String(name), args, { via, callId: caller, handOff });
      return Promise.race([dispatched, handedOff]);
    },
    async sandboxTools(callId): Promise<CodeCallableTools> {
      const hooks = calls.get(String(callId));
      if (!hooks?.sandboxTools) throw new Error('sandboxTools is only available to a running handler');
      return hooks.sandboxTools();
    },
    async session(callId, request): Promise<SessionAnswer> {
      const hooks = calls.get(String(callId));
      if (!hooks?.session)
        return {
          ok: false,
          code: 'STATE_REFUSED',
          message: 'ctx.session is only available to a handler while its call is running',
        };
      const coerced = sessionRequest(request);
      if (!coerced) return { ok: false, code: 'STATE_REFUSED', message: 'ctx.session: unknown operation' };
      return hooks.session(coerced);
    },
  };
}

/**
 * A ctx.session request as plugin code sent it, taken field by field (undefined: no known
 * operation): a key or value that is not a string, or a ttlMs that is not a number, arrives
 * as one the rules in boundary/session-state.ts refuse.
 */
function sessionRequest(raw: unknown): SessionRequest | undefined {
  const { op, key, value, ttlMs } = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  if (op !== 'get' && op !== 'set' && op !== 'delete') return undefined;
  const request: SessionRequest = { op, key: typeof key === 'string' ? key : '' };
  if (typeof value === 'string') request.value = value;
  if (ttlMs !== undefined) request.ttlMs = typeof ttlMs === 'number' ? ttlMs : Number.NaN;
  return request;
}
