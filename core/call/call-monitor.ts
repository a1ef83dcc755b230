/**
 * The host's `call` event: a record of every call when it ends, whatever ended it, for whoever
 * watches (the console's live list, an embedder's own). It is made only while something listens,
 * so a host nobody watches pays one listener count per call.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { envelope, type CallOutcome } from '../../boundary/outcome.js';
import type { ReceivedArguments } from './digests.js';
import type { Tier } from '../../boundary/tier.js';
import type { CallChain, CallRecord, DispatchOptions } from './public-types.js';

/** A call as the monitor and the audit log record it. */
export interface ObservedCall {
  tool: string;
  /** the arguments as received, read once (the audit log, the monitor and the trace share them) */
  args: () => ReceivedArguments;
  options: DispatchOptions;
  chain: CallChain;
  /** the tool's plugin and tier, when the registry knows the tool */
  owner?: { plugin: string; tier: Tier };
  /** the access rule its identity falls under */
  rule?: string;
}

/** Tells `emit` of every call `wrap` runs while `watching()` says someone listens. */
export class CallMonitor {
  constructor(
    /** whether anyone listens now */
    readonly watching: () => boolean,
    private readonly emit: (record: CallRecord) => void,
  ) {}

  /**
   * Runs the call and tells of it when it ends; a throw inside the host is told as the outcome `crashed` makes of it,
   * and thrown on.
   */
  async wrap(
    call: ObservedCall,
    run: () => Promise<CallOutcome>,
    crashed: (error: unknown) => CallOutcome,
  ): Promise<CallOutcome> {
    const time = new Date();
    const started = performance.now();
    const tell = (outcome: CallOutcome) => {
      // A listener's throw is its own problem: it must not change the call's outcome.
      try {
        this.emit(record(call, time, performance.now() - started, outcome));
      } catch {}
    };
    try {
      const outcome = await run();
      tell(outcome);
      return outcome;
    } catch (error) {
      tell(crashed(error));
      throw error;
    }
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
    chain: call.chain.map((hop) => ({ tool: hop.tool, plugin: hop.plugin })),
    ...(owner ? { plugin: owner.plugin, tier: owner.tier } : {}),
    ...('value' in received ? { args: received.value } : {}),
    result: envelope(outcome),
  };
}
