/**
 * The console's record of calls: the last 200 that ended, newest last, each
 * as a CallEntry. Arguments and results are kept (each up to
 * KEPT_PAYLOAD_CHARS), but an entry goes out without them unless the
 * operator asked for payloads (`?payloads=1`): a
 * call's arguments and result can hold what the operator did not mean to put
 * on a screen.
 */
import type { CallerIdentity, CallRecord, ToolCall } from '../call/public-types.js';
import type { CallEntry, ShownIdentity } from './api-types.js';

/** How many calls the console keeps. */
export const KEPT_CALLS = 200;

/**
 * The most of a call's result, and of its arguments' JSON, the console keeps and shows: 200 calls
 * of the largest results and arguments a host allows would otherwise hold hundreds of megabytes.
 */
export const KEPT_PAYLOAD_CHARS = 16_384;

/** `text` cut at KEPT_PAYLOAD_CHARS, marked where and how much. */
function cut(text: string): string {
  return `${text.slice(0, KEPT_PAYLOAD_CHARS)}… (${text.length - KEPT_PAYLOAD_CHARS} more characters not kept)`;
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
  const { args: _args, result: _result, truncated: _truncated, ...bare } = entry;
  return bare;
}

/** The last KEPT_CALLS calls. */
export class CallLog {
  private readonly entries: CallEntry[] = [];

  /** Records `call` and returns its entry (with payloads). */
  add(call: CallRecord): CallEntry {
    const { rule: _rule, args, result, ...record } = call;
    const entry: CallEntry = { ...record, resultChars: result.length };
    const truncated: CallEntry['truncated'] = [];
    if (args !== undefined) {
      const json = JSON.stringify(args) ?? '';
      if (json.length > KEPT_PAYLOAD_CHARS) truncated.push('args');
      entry.args = json.length > KEPT_PAYLOAD_CHARS ? cut(json) : args;
    }
    if (result.length > KEPT_PAYLOAD_CHARS) truncated.push('result');
    entry.result = result.length > KEPT_PAYLOAD_CHARS ? cut(result) : result;
    if (truncated.length) entry.truncated = truncated;
    this.entries.push(entry);
    if (this.entries.length > KEPT_CALLS) this.entries.shift();
    return entry;
  }

  /** The kept calls, oldest first. */
  list(payloads: boolean): CallEntry[] {
    return this.entries.map((entry) => withPayloads(entry, payloads));
  }
}
