/**
 * The audit log (config `audit`): one JSON line per call, written when the call ends, whatever
 * ended it: a result, a tool's failure, a refusal before any hook ran (an unknown tool, a tool not
 * exposed, invalid arguments, a quota), a hook's block, an approver's no, a nested call its chain
 * may not make, or a throw inside the host. Nested calls (`ctx.callTool`, execute_code's tool calls)
 * get their own line with the chain of callers. A line names who called (subject and issuer, never
 * the token), what (tool, plugin, tier), how it ended and the digests of the arguments and result;
 * the arguments themselves only when `audit.arguments` is on. A request refused before it became
 * a call (`serve --http`'s and the console's 401s, 403s, 429s) gets a line of its own: the
 * status, why, and who sent it. docs/security.md#audit-log.
 */
import { performance } from 'node:perf_hooks';
import { resultDigest } from './digests.js';
import { AuditSink } from './audit-sink.js';
import type { DispatchObserver, DispatchWatch, ObservedCall } from './dispatch-watches.js';
import type { CallOutcome } from '../../boundary/outcome.js';
import type { ToolErrorCode } from '../../boundary/errors.js';
import type { Tier } from '../../boundary/tier.js';
import type { AuditConfig } from '../config/public-types.js';
import type { AuditReport, RequestRefusal } from './public-types.js';
import type { Clock } from '../state/clock.js';

/** A tool name longer than this (only an unknown tool's can be) is cut in its line. */
const MAX_TOOL_CHARS = 256;

/** One line of the audit log, its fields in the order they are written. */
interface AuditLine {
  /** when the call began (ISO 8601, UTC) */
  time: string;
  /** the tool asked for */
  tool: string;
  /** 'OK', or the failure's code */
  code: 'OK' | ToolErrorCode;
  /** from the call's arrival to its outcome, approval waits included */
  durationMs: number;
  /** who the call was for, when it was for someone */
  identity?: { subject: string; issuer?: string };
  /** the name of the access rule the identity fell under (`host.as`, `serve.auth`), when there are rules */
  rule?: string;
  sessionId?: string;
  /** the model's tool call id, when the caller gave one */
  callId?: string;
  /** the tools whose handlers made this call, outermost first (empty for a call from outside) */
  chain: Array<{ tool: string; plugin: string }>;
  /** the plugin that owns the tool and where its handler runs, when the tool is known */
  plugin?: string;
  tier?: Tier;
  /** hex sha256 of the canonical JSON of the arguments as received (digests.ts) */
  argumentsSha256: string;
  /** hex sha256 of the result text the caller got (the text, or the error envelope) */
  resultSha256: string;
  /** the arguments as received, with `audit.arguments` on and when they could be read */
  arguments?: unknown;
}

/** The audit log of one host: its sink and whether lines carry the arguments. */
export class AuditLog implements DispatchObserver {
  private constructor(
    private readonly sink: AuditSink,
    private readonly withArguments: boolean,
  ) {}

  /**
   * Opens the sink `config.to` names (CONFIG_INVALID when a file cannot be opened); `warn` hears of a failing sink
   * once.
   */
  static async open(config: Required<AuditConfig>, warn: (message: string) => void, clock?: Clock): Promise<AuditLog> {
    return new AuditLog(await AuditSink.open(config.to, warn, clock), config.arguments);
  }

  /**
   * Watches every call, to write its line when it ends; a throw inside the host is written as the outcome it becomes.
   */
  started(call: ObservedCall): DispatchWatch {
    const time = new Date();
    const started = performance.now();
    const write = (outcome: CallOutcome) =>
      this.sink.write(JSON.stringify(this.line(call, time, performance.now() - started, outcome)));
    return { settled: write, threw: (_error, outcome) => write(outcome) };
  }

  /** The target and its counts, for explain. */
  report(): AuditReport {
    return this.sink.report();
  }

  /**
   * Writes the line of a request refused before it became a call (no tool ran, no dispatch saw it):
   * when, the status and why, who sent it, whom its token named and the session it named.
   */
  refused(refusal: RequestRefusal): void {
    const { identity } = refusal;
    this.sink.write(
      JSON.stringify({
        time: new Date().toISOString(),
        refused: refusal.status,
        reason: refusal.reason,
        ...(refusal.client !== undefined ? { client: refusal.client } : {}),
        ...(identity
          ? {
              identity: {
                subject: identity.subject,
                ...(identity.issuer !== undefined ? { issuer: identity.issuer } : {}),
              },
            }
          : {}),
        ...(refusal.sessionId !== undefined ? { sessionId: refusal.sessionId } : {}),
      }),
    );
  }

  /** Writes out every line and closes the sink. */
  close(): Promise<void> {
    return this.sink.close();
  }

  private line(call: ObservedCall, time: Date, durationMs: number, outcome: CallOutcome): AuditLine {
    const { options, owner } = call;
    const { identity } = options;
    const received = call.args();
    // Fields in the documented order; of the identity only who and by whom: never its token.
    return {
      time: time.toISOString(),
      tool: call.tool.length > MAX_TOOL_CHARS ? `${call.tool.slice(0, MAX_TOOL_CHARS)}…` : call.tool,
      code: outcome.ok ? 'OK' : outcome.code,
      durationMs: Math.round(durationMs * 10) / 10,
      ...(identity
        ? {
            identity: {
              subject: identity.subject,
              ...(identity.issuer !== undefined ? { issuer: identity.issuer } : {}),
            },
          }
        : {}),
      ...(call.rule !== undefined ? { rule: call.rule } : {}),
      ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
      ...(options.callId !== undefined ? { callId: options.callId } : {}),
      chain: call.context.chain.map((hop) => ({ tool: hop.tool, plugin: hop.plugin })),
      ...(owner ? { plugin: owner.plugin, tier: owner.tier } : {}),
      argumentsSha256: received.digest,
      resultSha256: resultDigest(outcome),
      ...(this.withArguments && 'value' in received ? { arguments: received.value } : {}),
    };
  }
}
