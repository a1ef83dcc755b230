/**
 * The object a tier exposes (behind the guard) to its workers: each method
 * finds the running call by id and forwards to that call's hooks. Arguments
 * come from plugin code, so every one is coerced whatever type it claims.
 */
import type { CallOutcome, HostRpc, SandboxToolset } from './protocol.js';
import type { CallHooks } from './runner.js';

/**
 * The `HostRpc` of a runner whose running calls are `calls`; log lines are cut to `maxLogChars`.
 * `via` names the worker this RPC endpoint belongs to, so a nested call can run inline there.
 */
export function hostRpc(calls: ReadonlyMap<string, CallHooks>, maxLogChars = Infinity, via?: object): HostRpc {
  return {
    log(callId, message) {
      calls.get(String(callId))?.log?.(String(message).slice(0, maxLogChars));
    },
    progress(callId, done, total) {
      calls.get(String(callId))?.progress?.(Number(done), total === undefined || total === null ? undefined : Number(total));
    },
    async callTool(callId, name, args): Promise<CallOutcome> {
      const hooks = calls.get(String(callId));
      if (!hooks) return { ok: false, code: 'PERMISSION_DENIED', message: 'callTool is only available while a call is running' };
      return via ? hooks.callTool(String(name), args, { via, callId: String(callId) }) : hooks.callTool(String(name), args);
    },
    async sandboxTools(callId): Promise<SandboxToolset> {
      const hooks = calls.get(String(callId));
      if (!hooks?.sandboxTools) throw new Error('sandboxTools is only available to a running handler');
      return hooks.sandboxTools();
    },
  };
}
