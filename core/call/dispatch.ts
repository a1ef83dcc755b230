/**
 * Dispatch: gate (only exposed tools) → parse → ajv validate → hooks
 * (hooks.ts) around the plugin's tier (timeout, abort, memory) → normalize → cap.
 * Every failure is an outcome with a code; nothing here throws for a tool's failure.
 */
import { didYouMean } from '../text/suggest.js';
import { codeLimits, sandboxTools, searchToolFor } from '../expose/code-execution.js';
import { acceptArguments, validateArguments, type ValidatedTool } from './arguments.js';
import { failure, type CallOutcome } from '../../boundary/outcome.js';
import { tierOutcome, type TierCall } from '../../boundary/tier-outcome.js';
import { describeChain, nestedContext, TOP_LEVEL, type CallContext } from './chain.js';
import { reachable, refuseByGrants } from './call-grants.js';
import { deadlockedWorkers, whileWaiting } from './reentry.js';
import { withHooks, type ToolCall, type ToolHooks } from './hooks.js';
import { breakerVerdict, type BreakerVerdict } from './breaker.js';
import { CallWatches, type DispatchObserver, type ObservedCall } from './dispatch-watches.js';
import { receivedArguments } from './digests.js';
import { awaitApproval, type ApprovalPolicy, type Approver } from './approval.js';
import type { CallHooks, CallOrigin, HandlerRequest } from '../runners/runner.js';
import type { Exposure } from '../expose/exposure.js';
import { toolInfo } from '../expose/tool-info.js';
import { structuredOutcome } from './results.js';
import type { Registry } from '../expose/registry.js';
import type { ResolvedConfig } from '../config/config.js';
import type { CodeCallableTools } from '../../boundary/plugin-api.js';
import type { ToolRecord } from '../load/types.js';
import type { CallerIdentity, CredentialProvider, DispatchOptions, Identity } from './public-types.js';
import type { Clock } from '../state/clock.js';
import { callSecrets } from './credentials.js';
import type { StateStore } from '../state/store-contract.js';
import { sessionHook, StateScope } from './plugin-state.js';
import { hostFailure } from './host-failure.js';

export type { DispatchOptions };

/**
 * A tool the host itself provides (tool_search). It passes the same gate and
 * argument checks as a plugin's tool, then runs here instead of in a tier.
 */
export interface HostTool extends ValidatedTool {
  run(args: unknown, options: DispatchOptions): Promise<CallOutcome>;
}

/** What dispatch needs from the host. */
export interface DispatchDeps {
  registry: Registry;
  config: () => ResolvedConfig;
  exposure: () => Promise<Exposure>;
  /** hooks around each call; absent or empty costs nothing */
  hooks?: () => readonly ToolHooks[];
  /** which tools need approval, and who approves when the call brings no approver */
  approval?: {
    policy: ApprovalPolicy;
    /** the surface's own approver (its onApproval, else its parent's), asked when the call brings none */
    approver(): Approver | undefined;
    /** approvers added to the host (the console), asked beside the call's own */
    added(): Iterable<Approver>;
    /** what the approval timeout is waited for by (default the real clock) */
    clock?: Clock;
  };
  /** the host's own tool of this name, when that exposure offers one */
  hostTool?(name: string, exposure: Exposure): HostTool | undefined;
  /** where plugins' ctx.session values live (without it, ctx.session fails with STATE_UNAVAILABLE) */
  state?: StateStore;
  /** holds a top-level call to its identity's quotas (config `access[].quota`) */
  admit?(): Promise<Admission>;
  /**
   * who sees every call, refused and nested ones included, in this order (dispatch-watches.ts): the audit log, the
   * host's `call` listeners, the spans, the circuit breaker
   */
  observers?: readonly DispatchObserver[];
  /** the access rule the calling identity falls under (`host.as`), which its audit lines name */
  accessRule?: string;
  /**
   * the embedder's per-identity credentials: the secrets tools declare (without it, such a tool fails with
   * CREDENTIALS_UNAVAILABLE)
   */
  credentials?: CredentialProvider;
}

/** A quota's answer to a call: refused with this outcome, or admitted until `release()`. */
export type Admission = { refused: CallOutcome } | { release(): void };

/** The limits one call runs under, and its observers' watches. */
interface CallLimits {
  timeoutMs: number;
  maxResultChars: number;
  watches: CallWatches | undefined;
  /** no hook runs after the tier: its outcome, mapped by tierOutcome, is the call's */
  final: boolean;
}

/** The sandbox toolset as of the current exposure, less what the calling chain (`context`) may not reach. */
async function currentSandboxTools(deps: DispatchDeps, context: CallContext): Promise<CodeCallableTools> {
  const exposure = await deps.exposure();
  const exposed = new Map(exposure.definitions.map((d) => [d.name, d]));
  const tools = sandboxTools(deps.config(), exposed, Array.from(deps.registry.tools.values(), toolInfo)).filter(
    (tool) => {
      const record = deps.registry.tools.get(tool.name);
      return record !== undefined && reachable(context, record, exposure, deps.registry);
    },
  );
  // No untrusted plugin's grant names tool_search, so code run on one's behalf gets no tools.search.
  const search = context.records.every((caller) => caller.plugin.source.trust !== 'untrusted')
    ? searchToolFor(tools, exposure.deferred)
    : undefined;
  return { tools, limits: codeLimits(deps.config()), ...(search ? { searchTool: search } : {}) };
}

/**
 * Why a nested call may not run: too deep, not granted to an untrusted plugin
 * in its chain, or a call back into a plugin whose workers are all busy (it
 * would queue behind the very calls waiting for it until their timeout).
 */
function refuseNested(
  deps: DispatchDeps,
  context: CallContext,
  record: ToolRecord,
  exposure: Exposure,
): CallOutcome | undefined {
  const { maxCallDepth } = deps.config().limits;
  if (context.chain.length > maxCallDepth) {
    return failure(
      'CALL_DEPTH_EXCEEDED',
      `nested tool calls are limited to a depth of ${maxCallDepth} (limits.maxCallDepth); call chain: ` +
        `${describeChain(context, record.name)}`,
    );
  }
  const denied = refuseByGrants(context, record, exposure, deps.registry);
  if (denied) return denied;
  // A call that runs inline in its caller's worker needs no free one.
  const workers = record.plugin.runner.runsInline?.(context.origin) ? undefined : deadlockedWorkers(context, record);
  if (workers !== undefined) {
    return failure(
      'CALL_WOULD_DEADLOCK',
      `${record.name} calls back into ${record.plugin.source.name} while all ${workers} of its workers are ` +
        `held by calls waiting on nested calls, this one's caller among them: it could never start (call chain: ` +
        `${describeChain(context, record.name)}). Raise limits.threads, or call the function directly instead of ` +
        `through ctx.callTool.`,
    );
  }
  return undefined;
}

/**
 * A host tool called through ctx.callTool: bounded like any call, and never on behalf of an untrusted plugin (no grant
 * names it).
 */
function refuseNestedHostTool(deps: DispatchDeps, context: CallContext, name: string): CallOutcome | undefined {
  const { maxCallDepth } = deps.config().limits;
  if (context.chain.length > maxCallDepth) {
    return failure(
      'CALL_DEPTH_EXCEEDED',
      `nested tool calls are limited to a depth of ${maxCallDepth} (limits.maxCallDepth); call chain: ` +
        `${describeChain(context, name)}`,
    );
  }
  const untrusted = context.records.find((caller) => caller.plugin.source.trust === 'untrusted');
  if (untrusted)
    return failure(
      'PERMISSION_DENIED',
      `${name} is toolshed's own tool and is not called on behalf of untrusted plugin ` +
        `${untrusted.plugin.source.name} (call chain: ${describeChain(context, name)})`,
    );
  return undefined;
}

/**
 * Runs one call through the whole pipeline and returns its outcome; `context` says who is calling
 * (TOP_LEVEL by default). Every call, refused or not, is told to the observers here, around the pipeline.
 */
export function dispatchOutcome(
  deps: DispatchDeps,
  name: string,
  rawArgs: unknown,
  options: DispatchOptions,
  context: CallContext = TOP_LEVEL,
): Promise<CallOutcome> {
  const watches =
    deps.observers && CallWatches.start(deps.observers, observedCall(deps, name, rawArgs, options, context));
  const run = () => runCall(deps, name, rawArgs, options, context, watches);
  return watches ? watches.run(run, (error) => hostFailure(name, error)) : run();
}

/** The call as its observers see it when it arrives. */
function observedCall(
  deps: DispatchDeps,
  name: string,
  rawArgs: unknown,
  options: DispatchOptions,
  context: CallContext,
): ObservedCall {
  const record = deps.registry.tools.get(name);
  return {
    tool: name,
    args: receivedArguments(rawArgs, deps.config().limits.maxArgsBytes),
    options,
    context,
    ...(record ? { owner: { plugin: record.plugin.source.name, tier: record.plugin.runner.tier } } : {}),
    ...(deps.accessRule !== undefined ? { rule: deps.accessRule } : {}),
  };
}

/** dispatchOutcome inside its observers' watches (undefined when none watches). */
async function runCall(
  deps: DispatchDeps,
  name: string,
  rawArgs: unknown,
  options: DispatchOptions,
  context: CallContext,
  watches: CallWatches | undefined,
): Promise<CallOutcome> {
  // Quotas count the calls an identity makes; nested calls ride on the call that made them.
  const admission = deps.admit && !context.chain.length ? await deps.admit() : undefined;
  if (admission && 'refused' in admission) return admission.refused;
  try {
    return await admittedCall(deps, name, rawArgs, options, context, watches);
  } finally {
    admission?.release();
  }
}

/** runCall once its quotas admitted it. */
async function admittedCall(
  deps: DispatchDeps,
  name: string,
  rawArgs: unknown,
  options: DispatchOptions,
  context: CallContext,
  watches: CallWatches | undefined,
): Promise<CallOutcome> {
  const exposure = await deps.exposure();
  const hostTool = deps.hostTool?.(name, exposure);
  const record = hostTool ? undefined : deps.registry.tools.get(name);
  const target = hostTool ?? record;
  if (!target) {
    // A tool of a plugin that failed to load is known, only unavailable: say why.
    const known = exposure.states.get(name);
    if (known) return failure('TOOL_NOT_EXPOSED', `tool '${name}' is not available here: ${known.reason}`);
    const exposedNames = exposure.definitions.map((d) => d.name);
    return failure('UNKNOWN_TOOL', `unknown tool '${name}'.${didYouMean(name, exposedNames)}`);
  }
  const state = exposure.states.get(name);
  if (!state?.exposed) {
    return failure('TOOL_NOT_EXPOSED', `tool '${name}' is not available here: ${state?.reason ?? 'not exposed'}`);
  }
  if (record) watches?.known(record);
  if (context.chain.length) {
    const refused = record ? refuseNested(deps, context, record, exposure) : refuseNestedHostTool(deps, context, name);
    if (refused) return refused;
  }
  const limits = deps.config().limits;
  const timeoutMs = target.manifest.limits.timeoutMs ?? limits.timeoutMs;
  const maxResultChars = Math.min(
    target.manifest.limits.maxResultChars ?? limits.maxResultChars,
    limits.maxResultChars,
  );
  const maxArgsBytes = Math.min(target.manifest.limits.maxArgsBytes ?? limits.maxArgsBytes, limits.maxArgsBytes);
  const accepted = acceptArguments(target, rawArgs, maxArgsBytes, maxResultChars);
  if (!accepted.ok) return accepted.outcome;
  const args = accepted.value;
  // The host's own tools (tool_search) run here; hooks wrap calls that reach a plugin's tier.
  if (hostTool || !record) return hostTool!.run(args, options);
  const hooks = deps.hooks?.();
  // A result checked against an outputSchema here is never handed off to be mapped in the caller's worker.
  const limitsOfCall: CallLimits = {
    timeoutMs,
    maxResultChars,
    watches,
    final: !hooks?.length && !record.manifest.outputSchema,
  };
  const approval = deps.approval?.policy.reasonFor(record);
  if (!hooks?.length && !approval) return runTool(deps, record, args, options, context, limitsOfCall);
  const call = toolCall(record, args, options, context);
  // Approval is asked last, for the arguments the hooks left: what the approver sees is what runs.
  const run = !approval
    ? (finalArgs: unknown) => runTool(deps, record, finalArgs, options, context, limitsOfCall)
    : async (finalArgs: unknown) => {
        const own = options.onApproval ?? deps.approval!.approver();
        const approvers = own ? [own, ...deps.approval!.added()] : [...deps.approval!.added()];
        const refused = await awaitApproval(
          { ...call, args: finalArgs },
          approval,
          approvers,
          deps.approval!.policy.timeoutMs,
          options.signal,
          deps.approval!.clock,
        );
        return refused ?? runTool(deps, record, finalArgs, options, context, limitsOfCall);
      };
  if (!hooks?.length) return run(args);
  return withHooks(hooks, call, {
    validate: (replaced) => validateArguments(record, replaced, maxResultChars),
    run,
    maxResultChars,
  });
}

/** An identity as hooks, approvers and the audit log see it: without its token. */
export function callerIdentity({ token: _token, ...identity }: Identity): CallerIdentity {
  return identity;
}

/** The call as hooks see it. */
function toolCall(record: ToolRecord, args: unknown, options: DispatchOptions, context: CallContext): ToolCall {
  const { chain } = context;
  const call: ToolCall = {
    tool: record.name,
    args,
    chain,
    plugin: record.plugin.source.name,
    tier: record.plugin.runner.tier,
    annotations: record.manifest.annotations,
  };
  if (options.sessionId !== undefined) call.sessionId = options.sessionId;
  if (options.identity !== undefined) call.identity = callerIdentity(options.identity);
  if (options.callId !== undefined) call.callId = options.callId;
  if (chain.length) call.caller = chain[chain.length - 1]!;
  return call;
}

/**
 * The plugin's tier runs the call, between the points its observers are told of: a watch may refuse it first (the
 * breaker's gate: a tool or plugin out of service, for everyone or for this session, before any worker starts).
 */
async function runTool(
  deps: DispatchDeps,
  record: ToolRecord,
  args: unknown,
  options: DispatchOptions,
  context: CallContext,
  limits: CallLimits,
): Promise<CallOutcome> {
  const { watches } = limits;
  const { sessionId } = options;
  const refused = watches?.admit(record, sessionId);
  if (refused !== undefined)
    return failure('TOOL_NOT_EXPOSED', `tool '${record.name}' is not available here: ${refused}`);
  const { outcome, verdict } = await runInTier(deps, record, args, options, context, limits);
  watches?.ran(record, outcome, verdict, sessionId);
  return outcome;
}

/** The plugin's tier runs the handler; its failures become outcomes, with how the breaker counts each. */
async function runInTier(
  deps: DispatchDeps,
  record: ToolRecord,
  args: unknown,
  options: DispatchOptions,
  context: CallContext,
  limits: CallLimits,
): Promise<{ outcome: CallOutcome; verdict: BreakerVerdict }> {
  const name = record.name;
  const { timeoutMs, maxResultChars, watches } = limits;
  // ctx.session: the session's state, or (no session id) this call's own, which its nested calls share.
  const ownScope = context.state ? undefined : new StateScope(options.sessionId);
  const scoped = ownScope ? { ...context, state: ownScope } : context;
  // A nested call's span hangs from this call's worker span.
  const nestedOf = (origin: Parameters<typeof nestedContext>[2], waitSeq: number) => {
    const nested = nestedContext(scoped, record, origin, waitSeq);
    return watches ? watches.adopt(nested) : nested;
  };
  // A nested call is a call of its own: it carries the chain, not the model's call id (its approver stays the
  // caller's).
  const nestedOptions = options.callId === undefined ? options : { ...options, callId: undefined };
  const hooks: CallHooks = {
    callTool: (nested, nestedArgs, origin) =>
      whileWaiting(record, (waitSeq) =>
        dispatchOutcome(deps, nested, nestedArgs, nestedOptions, nestedOf(origin, waitSeq)),
      ),
    sandboxTools: () => currentSandboxTools(deps, nestedContext(context, record)),
  };
  const { state } = deps;
  if (state)
    hooks.session = sessionHook(state, scoped.state!, record.plugin.source.name, deps.config().state.sessionTtlMs);
  const { onLog } = options;
  if (onLog) hooks.log = (message, level) => onLog(message, level ?? 'info');
  if (options.onElicitation) hooks.elicit = options.onElicitation;
  if (options.onProgress) hooks.progress = options.onProgress;
  const request: HandlerRequest = {
    tool: name,
    args,
    timeoutMs,
    maxResultChars,
    ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
  };
  if (options.identity) request.identity = options.identity;
  const declared = record.manifest.secrets;
  if (declared) {
    const asked = await callSecrets(
      deps.credentials,
      { name, plugin: record.plugin.source.name, secrets: declared },
      options.identity,
      options.signal,
    );
    if ('refused' in asked) return { outcome: asked.refused, verdict: 'ok' };
    request.secrets = asked.secrets;
  }
  const call: TierCall = { tool: name, plugin: record.plugin.source.name, timeoutMs, maxResultChars };
  const origin = handOffOrigin(context.origin, limits.final ? call : undefined);
  const handle = () => record.plugin.runner.handle(request, hooks, options.signal, origin);
  const outcome = await (watches ? watches.inTier(record, handle) : handle());
  if (ownScope?.written) await ownScope.end(state!);
  const mapped = tierOutcome(call, outcome);
  const final = record.manifest.outputSchema ? structuredOutcome(record, outcome, mapped, maxResultChars) : mapped;
  return { outcome: final, verdict: breakerVerdict(final, outcome) };
}

/**
 * The origin the tier sees. A nested call may be handed to the worker that made it, to run
 * there as the answer to its callTool (one round trip instead of two), only when nothing after
 * the tier can change its outcome (`call` given: no hook runs after it); the worker then maps
 * the result with tierOutcome exactly as done here, and this dispatch still waits for it.
 */
function handOffOrigin(origin: CallOrigin | undefined, call: TierCall | undefined): CallOrigin | undefined {
  if (!origin?.handOff) return origin;
  if (!call) return { via: origin.via, callId: origin.callId };
  const handOff = origin.handOff;
  return { via: origin.via, callId: origin.callId, handOff: (run) => handOff({ ...run, call }) };
}
