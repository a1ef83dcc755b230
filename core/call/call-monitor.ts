/**
 * The host's `call` event: a record of every call when it ends, whatever ended it, for whoever
 * watches (the console's live list, an embedder's own). It is made only while something listens,
 * so a host nobody watches pays one listener count per call.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { envelope, type CallOutcome } from '../../boundary/outcome.js';
import type { DispatchObserver, DispatchWatch, ObservedCall } from './dispatch-watches.js';
import type { CallRecord } from './public-types.js';

/** Tells `emit` of every call that starts while `watching()` says someone listens. */
export class CallMonitor implements DispatchObserver {
  constructor(
    /** whether anyone listens now */
    readonly watching: () => boolean,
    private readonly emit: (record: CallRecord) => void,
  ) {}

  /** Watches a call while someone listens, to tell of it when it ends (a throw inside the host as its outcome). */
  started(call: ObservedCall): DispatchWatch | undefined {
    if (!this.watching()) return undefined;
    const time = new Date();
    const started = performance.now();
    const tell = (outcome: CallOutcome) => {
      // A listener's throw is its own problem: it must not change the call's outcome.
      try {
        this.emit(record(call, time, performance.now() - started, outcome));
      } catch {}
    };
    return { settled: tell, threw: (_error, outcome) => tell(outcome) };
  }
}

function record(call: ObservedCall, time: Date, durationMs: number, outcome: CallOutcome): CallRecord {
  const { options, owner } = call;
  const { identity } = options;
  const received = call.args();
  return {
    id: randomUUID(),
    time: time.toISOString(),
    tool: call.tool,
    code: outcome.ok ? 'OK' : outcome.code,
    durationMs: Math.round(durationMs * 10) / 10,
    ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
    ...(options.callId !== undefined ? { callId: options.callId } : {}),
    ...(identity
      ? {
          identity: {
            subject: identity.subject,
            ...(identity.issuer !== undefined ? { issuer: identity.issuer } : {}),
          },
        }
      : {}),
    ...(call.rule !== undefined ? { rule: call.rule } : {}),
    chain: call.context.chain.map((hop) => ({ tool: hop.tool, plugin: hop.plugin })),
    ...(owner ? { plugin: owner.plugin, tier: owner.tier } : {}),
    ...('value' in received ? { args: received.value } : {}),
    result: envelope(outcome),
  };
}
