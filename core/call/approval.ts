/**
 * Approval for dangerous tools. Config `approve` names the tools (or
 * toolsets) whose calls wait for an approver, or says `destructive: true`
 * for every tool MCP's annotation defaults call destructive. The approver is
 * the caller's (`dispatch(…, { onApproval })`: MCP elicitation over serve, a
 * prompt in `toolshed call`), else the view's or the host's `onApproval`; the
 * approvers added to the host (the console) are asked at the same time, and
 * the first answer wins. An approver that cannot ask anyone (an MCP client
 * without elicitation) abstains, so the others are waited for.
 * No approver, a "no", a throw, or no answer in `approve.timeoutMs` refuses
 * the call with APPROVAL_DENIED or APPROVAL_TIMEOUT; the tool does not run.
 */
import { failure, type CallOutcome } from '../../boundary/outcome.js';
import { collectToolsets, ToolsetResolver } from '../expose/toolsets.js';
import { expandName } from '../expose/names.js';
import type {
  ApprovalDecision,
  ApprovalReason,
  ApprovalRequest,
  ApprovalSettled,
  Approver,
  ToolCall,
} from './public-types.js';

export type { ApprovalDecision, ApprovalReason, ApprovalRequest, ApprovalSettled, Approver } from './public-types.js';
import type { Registry } from '../expose/registry.js';
import type { ResolvedConfig } from '../config/config.js';
import type { ToolAnnotations } from '../../boundary/plugin-api.js';
import type { ToolRecord } from '../load/types.js';
import { timers, type TimerHandle } from '../state/clock.js';
import type { Clock } from '../state/clock.js';

/**
 * Whether MCP's defaults make a tool with these annotations destructive: not read-only, and not declared
 * non-destructive.
 */
function isDestructive(annotations: ToolAnnotations): boolean {
  return annotations.readOnlyHint !== true && annotations.destructiveHint !== false;
}

/**
 * Which tools need approval, resolved once against the registry's toolsets; TOOLSET_UNKNOWN for a name that is neither.
 */
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
    for (const name of approve.tools)
      for (const tool of expandName(name, resolver, toolsets, known, where)) listed.add(tool);
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

const WHY: Record<ApprovalReason, string> = {
  listed: 'it is listed in approve',
  destructive: 'it may be destructive and approve.destructive is on',
};

/** An approver's answer, read: yes, or no with why; `abstain` when it could not ask anyone. */
interface Answer {
  approved: boolean;
  reason?: string;
  abstain: boolean;
}

function readDecision(decision: ApprovalDecision): Answer {
  if (typeof decision === 'boolean') return { approved: decision, abstain: false };
  const approved = decision?.approved === true;
  return {
    approved,
    abstain: !approved && decision?.abstain === true,
    ...(decision?.reason ? { reason: decision.reason } : {}),
  };
}

/**
 * Asks every approver at once and settles on the first real answer: the call's own (MCP
 * elicitation, a terminal, a callback) and those added to the host (the console) race, and the
 * others' signals abort with why (`ApprovalSettled`). An approver that cannot ask anyone
 * abstains; its no counts only when no other approver is left to answer. A throw is a no.
 */
function firstAnswer(
  approvers: readonly Approver[],
  request: Omit<ApprovalRequest, 'signal'>,
  controller: AbortController,
): Promise<Answer> {
  return new Promise((resolve) => {
    const abstained: Array<Answer | undefined> = approvers.map(() => undefined);
    let left = approvers.length;
    approvers.forEach((approver, i) => {
      Promise.resolve()
        .then(() => approver({ ...request, signal: controller.signal }))
        .then(readDecision, (error: unknown) => ({
          approved: false,
          abstain: false,
          reason: `the approver failed: ${(error as Error)?.message ?? String(error)}`,
        }))
        .then((answer) => {
          if (controller.signal.aborted) return;
          if (!answer.abstain) return resolve(answer);
          abstained[i] = answer;
          // Every approver abstained: the first one's (the call's own) reason says why no one was asked.
          if (--left === 0) resolve(abstained.find((a) => a !== undefined)!);
        });
    });
  });
}

/**
 * Waits for `approvers`' answer on `call` (the first real one wins). Resolves to undefined when
 * the call may run, or to the outcome that refuses it.
 */
export async function awaitApproval(
  call: ToolCall,
  reason: ApprovalReason,
  approvers: readonly Approver[],
  timeoutMs: number,
  signal?: AbortSignal,
  clock?: Clock,
): Promise<CallOutcome | undefined> {
  if (!approvers.length) {
    return failure(
      'APPROVAL_DENIED',
      `${call.tool} needs approval (${WHY[reason]}), and nothing here can approve it: set onApproval on the ` +
        `host, or call it from a client that can ask (MCP elicitation, toolshed call on a terminal)`,
    );
  }
  if (signal?.aborted)
    return failure('TOOL_CANCELLED', `${call.tool} was cancelled by the caller while waiting for approval`);
  const controller = new AbortController();
  const timedOut = Symbol('timeout');
  const t = timers(clock);
  let timer: TimerHandle | undefined;
  const onCancel = () => controller.abort({ by: 'cancelled' } satisfies ApprovalSettled);
  signal?.addEventListener('abort', onCancel, { once: true });
  try {
    const deadline = new Promise<typeof timedOut>((resolve) => {
      timer = t.after(timeoutMs, () => {
        resolve(timedOut);
        controller.abort({ by: 'timeout' } satisfies ApprovalSettled);
      });
    });
    const cancelled = new Promise<'cancelled'>((resolve) =>
      controller.signal.addEventListener('abort', () => resolve('cancelled'), { once: true }),
    );
    const answer = firstAnswer(approvers, { ...call, reason, timeoutMs }, controller);
    const decision = await Promise.race([answer, deadline, cancelled]);
    if (decision === timedOut)
      return failure(
        'APPROVAL_TIMEOUT',
        `${call.tool} was not approved within ${timeoutMs} ms (approve.timeoutMs); it did not run`,
      );
    if (decision === 'cancelled')
      return failure('TOOL_CANCELLED', `${call.tool} was cancelled by the caller while waiting for approval`);
    // The others stop asking: the answer is in.
    controller.abort({ by: 'another approver', approved: decision.approved } satisfies ApprovalSettled);
    if (decision.approved) return undefined;
    const why = decision.reason ? `: ${decision.reason}` : '';
    return failure('APPROVAL_DENIED', `${call.tool} was not approved${why}; it did not run`);
  } finally {
    t.cancel(timer);
    signal?.removeEventListener('abort', onCancel);
  }
}
