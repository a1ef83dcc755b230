/**
 * The console's record of calls: the last 200 that ended, newest last, each
 * as a CallEntry. Arguments and results are kept, but an entry goes out
 * without them unless the operator asked for payloads (`?payloads=1`): a
 * call's arguments and result can hold what the operator did not mean to put
 * on a screen.
 */
import type { CallerIdentity, CallRecord, ToolCall } from '../call/public-types.js';

/** How many calls the console keeps. */
export const KEPT_CALLS = 200;

/** Who a call or held call is for, as the console shows it: subject and issuer only (never claims or scopes). */
export interface ShownIdentity {
  subject: string;
  issuer?: string;
}

/** One call as the API sends it (docs/console.md#api): the host's record, with the size of its result. */
export interface CallEntry extends Omit<CallRecord, 'result' | 'rule'> {
  resultChars: number;
  result?: string;
}

/** The identity without its claims and scopes. */
export function shownIdentity(identity: CallerIdentity): ShownIdentity {
  return { subject: identity.subject, ...(identity.issuer !== undefined ? { issuer: identity.issuer } : {}) };
}

/** The chain without trust: who called whom. */
export function shownChain(chain: ToolCall['chain']): CallEntry['chain'] {
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
  add(call: CallRecord): CallEntry {
    const { rule: _rule, ...record } = call;
    const entry: CallEntry = { ...record, resultChars: call.result.length };
    this.entries.push(entry);
    if (this.entries.length > KEPT_CALLS) this.entries.shift();
    return entry;
  }

  /** The kept calls, oldest first. */
  list(payloads: boolean): CallEntry[] {
    return this.entries.map((entry) => withPayloads(entry, payloads));
  }
}
