/**
 * The console's record of calls: the last 200 that ended, newest last, each
 * as a CallEntry. Arguments and results are kept, but an entry goes out
 * without them unless the operator asked for payloads (`?payloads=1`): a
 * call's arguments and result can hold what the operator did not mean to put
 * on a screen.
 */
import { randomUUID } from 'node:crypto';
import type { ObservedCall } from './host-access.js';
import type { CallerIdentity } from '../call/public-types.js';

/** How many calls the console keeps. */
export const KEPT_CALLS = 200;

/** Who a call or held call is for, as the console shows it: subject and issuer only (never claims or scopes). */
export interface ShownIdentity {
  subject: string;
  issuer?: string;
}

/** One call as the API sends it (docs/console.md#api). */
export interface CallEntry {
  id: string;
  time: string;
  tool: string;
  code: ObservedCall['code'];
  durationMs: number;
  sessionId?: string;
  callId?: string;
  identity?: ShownIdentity;
  chain: Array<{ tool: string; plugin: string }>;
  plugin?: string;
  tier?: string;
  resultChars: number;
  args?: unknown;
  result?: string;
}

/** The identity without its claims and scopes. */
export function shownIdentity(identity: CallerIdentity): ShownIdentity {
  return { subject: identity.subject, ...(identity.issuer !== undefined ? { issuer: identity.issuer } : {}) };
}

/** The chain without trust: who called whom. */
export function shownChain(chain: ObservedCall['chain']): CallEntry['chain'] {
  return chain.map(({ tool, plugin }) => ({ tool, plugin }));
}

/** `entry` as sent: with its arguments and result only when `payloads`. */
export function withPayloads(entry: CallEntry, payloads: boolean): CallEntry {
  if (payloads) return entry;
  const { args: _args, result: _result, ...bare } = entry;
  return bare;
}

/** The last KEPT_CALLS calls. */
export class CallLog {
  private readonly entries: CallEntry[] = [];

  /** Records `call` and returns its entry (with payloads). */
  add(call: ObservedCall): CallEntry {
    const entry: CallEntry = {
      id: randomUUID(),
      time: new Date(call.at).toISOString(),
      tool: call.tool,
      code: call.code,
      durationMs: Math.round(call.durationMs),
      ...(call.sessionId !== undefined ? { sessionId: call.sessionId } : {}),
      ...(call.callId !== undefined ? { callId: call.callId } : {}),
      ...(call.identity ? { identity: shownIdentity(call.identity) } : {}),
      chain: shownChain(call.chain),
      ...(call.plugin !== undefined ? { plugin: call.plugin } : {}),
      ...(call.tier !== undefined ? { tier: call.tier } : {}),
      resultChars: call.text.length,
      args: call.args,
      result: call.text,
    };
    this.entries.push(entry);
    if (this.entries.length > KEPT_CALLS) this.entries.shift();
    return entry;
  }

  /** The kept calls, oldest first. */
  list(payloads: boolean): CallEntry[] {
    return this.entries.map((entry) => withPayloads(entry, payloads));
  }
}
