/**
 * Approval for dangerous tools. Config `approve` names the tools (or
 * toolsets) whose calls wait for an approver, or says `destructive: true`
 * for every tool MCP's annotation defaults call destructive. The approver is
 * the caller's (`dispatch(…, { onApproval })`: MCP elicitation over serve, a
 * prompt in `toolshed call`), else the view's or the host's `onApproval`.
 * No approver, a "no", a throw, or no answer in `approve.timeoutMs` refuses
 * the call with APPROVAL_DENIED or APPROVAL_TIMEOUT; the tool does not run.
 */
import { failure, type CallOutcome } from '../../boundary/outcome.js';
import { collectToolsets, ToolsetResolver } from '../expose/toolsets.js';
import { expandName } from '../expose/names.js';
import type { ApprovalReason, Approver, ToolCall } from './public-types.js';

export type { ApprovalDecision, ApprovalReason, ApprovalRequest, Approver } from './public-types.js';
import type { Registry } from '../expose/registry.js';
import type { ResolvedConfig } from '../config/config.js';
import type { ToolAnnotations } from '../../boundary/plugin-api.js';
import type { ToolRecord } from '../load/types.js';

/** Whether MCP's defaults make a tool with these annotations destructive: not read-only, and not declared non-destructive. */
function isDestructive(annotations: ToolAnnotations): boolean {
  return annotations.readOnlyHint !== true && annotations.destructiveHint !== false;
}

/** Which tools need approval, resolved once against the registry's toolsets; TOOLSET_UNKNOWN for a name that is neither. */
export class ApprovalPolicy {
  private readonly listed: ReadonlySet<string>;

  constructor(
    private readonly approve: ResolvedConfig['approve'],
    registry: Registry,
    config: ResolvedConfig,
    /** where `approve` was written, for TOOLSET_UNKNOWN (an access rule's approve) */
    where = 'approve',
  ) {
    const known = new Set(registry.tools.keys());
    const toolsets = collectToolsets(registry, config.toolsets);
    const resolver = new ToolsetResolver(toolsets, known);
    const listed = new Set<string>();
    for (const name of approve.tools) for (const tool of expandName(name, resolver, toolsets, known, where)) listed.add(tool);
    this.listed = listed;
  }

  /** Whether any tool can need approval at all (otherwise dispatch skips the check). */
  get active(): boolean {
    return this.listed.size > 0 || this.approve.destructive;
  }

  /** How long a call waits for an answer. */
  get timeoutMs(): number {
    return this.approve.timeoutMs;
  }

  /** Why `record`'s calls need approval, or undefined when they do not. */
  reasonFor(record: ToolRecord): ApprovalReason | undefined {
    if (this.listed.has(record.name)) return 'listed';
    if (this.approve.destructive && isDestructive(record.manifest.annotations)) return 'destructive';
    return undefined;
  }
}

const WHY: Record<ApprovalReason, string> = { listed: 'it is listed in approve', destructive: 'it may be destructive and approve.destructive is on' };

/**
 * Waits for `approver`'s answer on `call`. Resolves to undefined when the call may run,
 * or to the outcome that refuses it.
 */
export async function awaitApproval(call: ToolCall, reason: ApprovalReason, approver: Approver | undefined, timeoutMs: number, signal?: AbortSignal): Promise<CallOutcome | undefined> {
  if (!approver) {
    return failure(
      'APPROVAL_DENIED',
      `${call.tool} needs approval (${WHY[reason]}), and nothing here can approve it: set onApproval on the host, or call it from a client that can ask (MCP elicitation, toolshed call on a terminal)`,
    );
  }
  if (signal?.aborted) return failure('TOOL_CANCELLED', `${call.tool} was cancelled by the caller while waiting for approval`);
  const controller = new AbortController();
  const timedOut = Symbol('timeout');
  let timer: NodeJS.Timeout | undefined;
  const onCancel = () => controller.abort();
  signal?.addEventListener('abort', onCancel, { once: true });
  try {
    const deadline = new Promise<typeof timedOut>((resolve) => {
      timer = setTimeout(() => {
        resolve(timedOut);
        controller.abort();
      }, timeoutMs);
    });
    const cancelled = new Promise<'cancelled'>((resolve) => controller.signal.addEventListener('abort', () => resolve('cancelled'), { once: true }));
    const answer = Promise.resolve().then(() => approver({ ...call, reason, timeoutMs, signal: controller.signal }));
    const decision = await Promise.race([answer, deadline, cancelled]);
    if (decision === timedOut) return failure('APPROVAL_TIMEOUT', `${call.tool} was not approved within ${timeoutMs} ms (approve.timeoutMs); it did not run`);
    if (decision === 'cancelled') return failure('TOOL_CANCELLED', `${call.tool} was cancelled by the caller while waiting for approval`);
    const approved = typeof decision === 'boolean' ? decision : decision?.approved === true;
    if (approved) return undefined;
    const why = typeof decision === 'object' && decision?.reason ? `: ${decision.reason}` : '';
    return failure('APPROVAL_DENIED', `${call.tool} was not approved${why}; it did not run`);
  } catch (error) {
    return failure('APPROVAL_DENIED', `${call.tool} was not approved: the approver failed: ${(error as Error)?.message ?? String(error)}`);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onCancel);
  }
}
