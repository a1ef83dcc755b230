/**
 * The ToolHost methods over one selection. The host is the root surface; each
 * `view()` is another surface with its own pipeline (selection narrowed,
 * definitions memoized on their own, its own events and hooks) over the same
 * registry, check cache and runners, so a view starts no worker.
 */
import { DefinitionsPipeline, type PipelineDeps } from '../expose/pipeline.js';
import type { Exposure } from '../expose/exposure.js';
import { callerIdentity, dispatchOutcome, type DispatchDeps } from '../call/dispatch.js';
import { hostFailure } from '../call/host-failure.js';
import { envelope, failure, type CallOutcome } from '../../boundary/outcome.js';
import { HookList } from '../call/hooks.js';
import type { ApprovalPolicy, Approver } from '../call/approval.js';
import type { CircuitBreaker } from '../call/breaker.js';
import type { AuditLog } from '../call/audit.js';
import type { DispatchObserver } from '../call/dispatch-watches.js';
import { HostEmitter, type HostEvents } from './events.js';
import { viewDefer, viewNarrowing, type Narrowing } from './view.js';
import { accessView } from './identity-view.js';
import { registerInspector, type HostInspector } from './inspector.js';
import { FormattedDefinitions } from './formatted-definitions.js';
import { toolInfo } from '../expose/tool-info.js';
import type { Quotas, RuleQuota } from '../access/quota.js';
import type { HostReport } from '../explain/explain.js';
import type { ResolvedConfig } from '../config/config.js';
import type { Registry } from '../expose/registry.js';
import type { ToolHost } from './tool-host.js';
import type { CredentialProvider, DispatchOptions, Identity } from '../call/public-types.js';
import { SearchState, type SearchReport } from '../call/search/search-state.js';
import type { SessionStore } from '../call/search/sessions.js';
import type { EmbeddingStore } from '../call/search/embeddings.js';
import type { StateStore } from '../state/store-contract.js';

/** What every surface of one host shares: plugins, runners, the check cache, the config. */
export interface HostShared {
  registry: Registry;
  config: ResolvedConfig;
  /** where session state lives (shared by the host and its views) */
  state: StateStore;
  /** where every surface's calls are audited (config `audit`), when on */
  audit?: AuditLog;
  /** the pipeline inputs every selection uses */
  pipelineDeps: Omit<PipelineDeps, 'narrow' | 'onChange' | 'onWarning'>;
  /** the report for one surface's exposure, with that surface's tool-search section and approval policy */
  report(exposure: Exposure | undefined, search: SearchReport, approval: ApprovalPolicy): HostReport;
  /** what each session's searches loaded, shared by the host and its views (keyed by session id) */
  sessions: SessionStore;
  isClosed(): boolean;
  /** forgets cached check results (for every surface) */
  invalidateChecks(): void;
  /** every live surface's pipeline, so invalidating checks can reset them all */
  pipelines: Set<DefinitionsPipeline>;
  /**
   * which tools need approval (config `approve`): the root's policy, which views inherit unless an access rule sets
   * theirs
   */
  approval: ApprovalPolicy;
  /** per-identity quota counters (config `access[].quota`), shared by every surface */
  quotas: Quotas;
  /** tools and plugins out of service after crashing or timing out too often */
  breaker?: CircuitBreaker;
  /** accepts changed MCP tool definitions and waits until the exposure shows them */
  acceptDefinitions: ToolHost['acceptDefinitions'];
  /** the embedder's per-identity credentials, for the secrets tools declare */
  credentials?: CredentialProvider;
  /** who sees every call through any surface: the audit log, the `call` listeners, the spans, the breaker */
  observers: readonly DispatchObserver[];
  /** approvers added to the host (the console): every surface asks them beside a call's own */
  approvers: Set<Approver>;
  /** tool vectors for hybrid search, shared by every surface (config `search.embedder`) */
  embeddings?: EmbeddingStore;
}

/** One surface's own state. */
interface Scope {
  pipeline: DefinitionsPipeline;
  emitter: HostEmitter;
  hooks: HookList;
  narrowing: Narrowing | undefined;
  /** the config this surface's pipeline reads: the host's, with a view's own defer */
  config: ResolvedConfig;
  /** this surface's onApproval, else its parent's */
  approver(): Approver | undefined;
  /** emits a handler's `ctx.log` line on this surface and every one above it */
  log(entry: HostEvents['log'][0]): void;
  /** who every call through this surface is for (`host.as`), else its parent's */
  identity: Identity | undefined;
  /** which of its calls need approval: its access rule's, else its parent's, else the host's */
  approval: ApprovalPolicy;
  /** the quota its identity's calls count against (`host.as` under a rule with one), else its parent's */
  quota: RuleQuota | undefined;
  /** the name of the access rule its identity falls under, else its parent's (the audit log names it) */
  rule: string | undefined;
}

/** Where a new scope sits: under `parent` (a view), narrowed, with its own approver, defer and emitter. */
interface ScopeOptions {
  parent?: Scope;
  narrowing?: Narrowing;
  onApproval?: Approver;
  /** a view's own defer; it replaces its parent's */
  defer?: ResolvedConfig['defer'];
  /** the events this scope emits on (default: a new emitter) */
  emitter?: HostEmitter;
  /** who every call through it is for (`host.as`) */
  identity?: Identity;
  /** its own approval policy (an access rule's approve) */
  approval?: ApprovalPolicy;
  /** its identity's quota (an access rule's) */
  quota?: RuleQuota;
  /** the name of its identity's access rule */
  rule?: string;
}

/** A new scope: its own pipeline and emitter; hooks, approver and logs chained to `parent`'s. */
export function openScope(
  shared: Pick<HostShared, 'config' | 'pipelineDeps' | 'pipelines' | 'approval'>,
  {
    parent,
    narrowing,
    onApproval,
    defer,
    emitter = new HostEmitter(),
    identity,
    approval,
    quota,
    rule,
  }: ScopeOptions = {},
): Scope {
  // A view's own defer replaces its parent's; created once, so the pipeline's per-config memo holds.
  const inherited = parent?.config ?? shared.config;
  const config = defer === undefined ? inherited : { ...inherited, defer };
  const pipeline = new DefinitionsPipeline({
    ...shared.pipelineDeps,
    config: () => config,
    ...(narrowing ? { narrow: narrowing } : {}),
    onChange: (generation) => emitter.emit('change', generation),
    onWarning: (message) => emitter.emit('warning', message),
  });
  shared.pipelines.add(pipeline);
  return {
    pipeline,
    emitter,
    config,
    hooks: new HookList(parent?.hooks),
    narrowing,
    approver: () => onApproval ?? parent?.approver(),
    identity: identity ?? parent?.identity,
    approval: approval ?? parent?.approval ?? shared.approval,
    quota: quota ?? parent?.quota,
    rule: rule ?? parent?.rule,
    log: (entry) => {
      emitter.emit('log', entry);
      parent?.log(entry);
    },
  };
}

/** How a surface ends: the host's teardown, or a view's detach. */
interface SurfaceLifetime {
  close(): Promise<void>;
  /** true once calls through this surface must be refused with HOST_CLOSED */
  isClosed(): boolean;
}

/** The ToolHost over `scope`. */
export function createSurface(shared: HostShared, scope: Scope, lifetime: SurfaceLifetime): ToolHost {
  const { registry, config } = shared;
  const { pipeline, emitter } = scope;
  // Each surface searches its own exposure; what a session loaded is shared (views of one conversation see it).
  const search = new SearchState(
    config.search,
    shared.sessions,
    () => pipeline.current(),
    (sessionId, tools) => emitter.emit('loaded', { sessionId, tools }),
    (tool) => registry.tools.get(tool)?.plugin.source,
    shared.embeddings,
  );
  const formatted = new FormattedDefinitions(config.search, (exposure, sessionId) =>
    search.definitionsFor(exposure, sessionId),
  );
  const calls = new SurfaceCalls(dispatchDeps(shared, scope, search), scope, lifetime);
  const surface: ToolHost = {
    config,
    state: shared.state,
    clock: shared.pipelineDeps.clock,
    definitions: (options = {}) => formatted.of(() => pipeline.current(), options),
    async dispatch(name, args, callOptions) {
      return envelope(await surface.call(name, args, callOptions));
    },
    async call(name, args, callOptions = {}) {
      const outcome = await calls.call(name, args, callOptions);
      // Calling a deferred tool the session never loaded works (loading is about what the model is shown); explain
      // counts it.
      const exposure = pipeline.last;
      if (exposure && (outcome.ok || (outcome.code !== 'UNKNOWN_TOOL' && outcome.code !== 'TOOL_NOT_EXPOSED')))
        search.noteCall(exposure, name, callOptions.sessionId);
      return outcome;
    },
    explain: () => shared.report(pipeline.last, search.report(pipeline.last), scope.approval),
    async refresh() {
      const exposure = await pipeline.current();
      return shared.report(exposure, search.report(exposure), scope.approval);
    },
    invalidateChecks: () => shared.invalidateChecks(),
    acceptDefinitions: (request) => shared.acceptDefinitions(request),
    on(event, listener) {
      emitter.on(event, listener as never);
      return surface;
    },
    off(event, listener) {
      emitter.off(event, listener as never);
      return surface;
    },
    use: (hooks) => scope.hooks.add(hooks),
    view: (options) => openView(shared, scope, options),
    as: (identity) => openIdentityView(shared, scope, identity),
    close: () => {
      search.close();
      return lifetime.close();
    },
  };
  registerInspector(
    surface,
    surfaceInspector(shared, search, () => pipeline.current()),
  );
  return surface;
}

/** What dispatch needs from one surface: the host's registry and observers, the surface's exposure, hooks and rules. */
function dispatchDeps(shared: HostShared, scope: Scope, search: SearchState): DispatchDeps {
  const { pipeline } = scope;
  const { config } = shared;
  const deps: DispatchDeps = {
    registry: shared.registry,
    config: () => config,
    exposure: () => pipeline.current(),
    hooks: () => scope.hooks.list(),
    hostTool: (name, exposure) => search.hostTool(name, exposure),
    state: shared.state,
    ...(shared.credentials ? { credentials: shared.credentials } : {}),
    observers: shared.observers,
  };
  if (scope.approval.active)
    deps.approval = {
      policy: scope.approval,
      approver: () => scope.approver(),
      added: () => shared.approvers,
      clock: shared.pipelineDeps.clock,
    };
  const { identity, quota } = scope;
  if (identity && quota) deps.admit = () => shared.quotas.admit(identity, quota);
  if (scope.rule !== undefined) deps.accessRule = scope.rule;
  return deps;
}

/** One surface's calls: refused once it is closed, made as its identity, their log lines on its events. */
class SurfaceCalls {
  constructor(
    private readonly deps: DispatchDeps,
    private readonly scope: Scope,
    private readonly lifetime: SurfaceLifetime,
  ) {}

  async call(name: string, args: unknown, callOptions: DispatchOptions): Promise<CallOutcome> {
    if (this.lifetime.isClosed()) return failure('HOST_CLOSED', `${name} could not run: the host is closed`);
    const { scope, deps } = this;
    try {
      // A surface made for an identity calls as that identity, whatever the call says.
      const identity = scope.identity ?? callOptions.identity;
      return await dispatchOutcome(deps, name, args, {
        ...callOptions,
        ...(identity ? { identity } : {}),
        onLog: (message, level) => {
          scope.log({ plugin: deps.registry.tools.get(name)?.plugin.source.name ?? '?', tool: name, message, level });
          callOptions.onLog?.(message, level);
        },
      });
    } catch (error) {
      // A host-level failure (e.g. a config toolset error after reload) must still not throw from dispatch.
      return hostFailure(name, error);
    }
  }
}

/** What the console and serve read of a surface beyond ToolHost. */
function surfaceInspector(shared: HostShared, search: SearchState, current: () => Promise<Exposure>): HostInspector {
  return {
    config: () => shared.config,
    toolInfo: (name) => {
      const record = shared.registry.tools.get(name);
      return record ? toolInfo(record) : undefined;
    },
    search: async (query, limit) => search.ranked(await current(), query, limit),
    breakers: () => shared.breaker?.report() ?? [],
    addApprover(approver) {
      shared.approvers.add(approver);
      return () => void shared.approvers.delete(approver);
    },
    recordRefusal: (refusal) =>
      shared.audit?.refused({
        ...refusal,
        ...(refusal.identity ? { identity: callerIdentity(refusal.identity) } : {}),
      }),
  };
}

/**
 * `parent` as `identity` sees it: the view its access rule gives (the parent's own without rules), every call made for
 * it.
 */
function openIdentityView(shared: HostShared, parent: Scope, identity: Identity): ToolHost {
  const access = accessView(identity, shared.registry, shared.config);
  if (!access) return openView(shared, parent, {}, { identity });
  const { options, rule, label, approval, quota } = access;
  return openView(shared, parent, options, {
    identity,
    rule,
    label,
    ...(approval ? { approval } : {}),
    ...(quota ? { quota } : {}),
  });
}

/** What an identity view adds to a view: who it is for, its rule's name, approval policy and quota. */
interface IdentityScope {
  identity: Identity;
  /** its access rule's name */
  rule?: string;
  /** names the view in reasons (default 'this view') */
  label?: string;
  approval?: ApprovalPolicy;
  quota?: RuleQuota;
}

/** A view of `parent`: a narrower scope that follows its parent's changes until closed. */
function openView(
  shared: HostShared,
  parent: Scope,
  options: Parameters<ToolHost['view']>[0],
  access?: IdentityScope,
): ToolHost {
  if (options?.onApproval !== undefined && typeof options.onApproval !== 'function')
    throw new TypeError('view(): onApproval must be a function');
  const { label, ...scoped } = access ?? {};
  const narrowing = viewNarrowing(options, shared.registry, shared.config, parent.narrowing, label);
  const defer = viewDefer(options, shared.registry, shared.config, label);
  const scope = openScope(shared, {
    parent,
    narrowing,
    ...(options?.onApproval ? { onApproval: options.onApproval } : {}),
    ...(defer !== undefined ? { defer } : {}),
    ...scoped,
  });
  // The parent's exposed set moved (a check flipped, a reload): recompute so this view emits its own change.
  const follow = () => {
    if (!shared.isClosed())
      scope.pipeline
        .current()
        .catch((error: Error) => scope.emitter.emit('warning', `view could not follow its host: ${error.message}`));
  };
  parent.emitter.on('change', follow);
  let closed = false;
  return createSurface(shared, scope, {
    isClosed: () => closed || shared.isClosed(),
    async close() {
      if (closed) return;
      closed = true;
      parent.emitter.off('change', follow);
      shared.pipelines.delete(scope.pipeline);
      scope.emitter.removeAllListeners();
    },
  });
}
