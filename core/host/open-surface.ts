/**
 * Step 6 of `createToolHost`: the root surface, the `ToolHost` the embedder
 * holds. It follows the MCP servers' changes, reports with `explain`, and
 * its `close()` tears down what the earlier steps opened.
 */
import { performance } from 'node:perf_hooks';
import { explainHost } from '../explain/explain.js';
import { SessionStore } from '../call/search/sessions.js';
import { EmbeddingStore } from '../call/search/embeddings.js';
import { UsageError } from '../../boundary/errors.js';
import { createSurface, openScope, type HostShared } from './surface.js';
import { Quotas } from '../access/quota.js';
import { CallMonitor } from '../call/call-monitor.js';
import { dispatchSpans } from '../call/tracing.js';
import { breakerObserver } from '../call/breaker-observer.js';
import type { DispatchObserver } from '../call/dispatch-watches.js';
import type { CircuitBreaker } from '../call/breaker.js';
import type { HostEmitter } from './events.js';
import type { HostSettings } from './open-config.js';
import type { HostRunners } from './open-runners.js';
import type { PluginEntries, HostPlugins } from './load-plugins.js';
import type { HostServers } from './start-servers.js';
import type { HostPipeline } from './open-pipeline.js';
import type { Approver } from '../call/approval.js';
import type { AuditLog } from '../call/audit.js';
import { probeSandbox } from '../../boundary/launch/probe.js';
import type { ToolHost } from './tool-host.js';
import type { StateStore } from '../state/store-contract.js';

/** Everything the earlier steps made, and how the host ends. */
interface SurfaceInput {
  settings: HostSettings;
  /** where session state lives */
  state: StateStore;
  entries: PluginEntries;
  runners: HostRunners;
  loaded: HostPlugins;
  servers: HostServers | undefined;
  pipeline: HostPipeline;
  /** the root surface's events (logs of checks and servers went here from the start) */
  events: HostEmitter;
  /** where every call's audit line goes (config `audit`), when on */
  audit: AuditLog | undefined;
  onApproval: Approver | undefined;
  /** when `createToolHost` was called (performance.now()) */
  started: number;
  /** stops everything the steps opened, last first */
  teardown(): Promise<void>;
}

/** The root surface, with its first exposure computed; on failure, everything is torn down. */
export async function openSurface(input: SurfaceInput): Promise<ToolHost> {
  const { settings, pipeline, servers, events } = input;
  const { config } = settings;
  let closed = false;
  let startupDone: number | undefined;
  const root = openScope(
    { config, pipelineDeps: pipeline.pipelineDeps, pipelines: pipeline.pipelines, approval: pipeline.approval },
    { emitter: events, ...(input.onApproval ? { onApproval: input.onApproval } : {}) },
  );
  for (const hooks of settings.hooks) root.hooks.add(hooks);
  // A server connected, went away or re-listed (or definitions were accepted): rebuild the registry and
  // recompute until caught up, so 'change' fires now (views follow the root's change).
  const caughtUp = async () => {
    pipeline.reload();
    let exposure = await root.pipeline.current();
    while (!closed && exposure.registryGeneration !== pipeline.registry.generation)
      exposure = await root.pipeline.current();
  };
  servers?.onChange(
    () =>
      void caughtUp().catch((error: Error) =>
        events.emit('warning', `MCP server change: ${error?.message ?? String(error)}`),
      ),
  );
  const shared = hostShared(input, {
    isClosed: () => closed,
    startupMs: () => startupDone ?? performance.now() - input.started,
    caughtUp,
  });
  const host = createSurface(shared, root, {
    isClosed: () => closed,
    async close() {
      if (closed) return;
      closed = true;
      await shared.embeddings?.close();
      await input.teardown();
      events.removeAllListeners();
    },
  });
  try {
    await root.pipeline.current();
    startupDone = performance.now() - input.started;
  } catch (error) {
    await host.close();
    throw error;
  }
  return host;
}

/** What the root surface tells the parts every surface shares. */
interface RootState {
  isClosed(): boolean;
  /** how long the host took to start (so far, while it starts) */
  startupMs(): number;
  /** rebuilds the registry and recomputes until the root's exposure shows it */
  caughtUp(): Promise<void>;
}

/** What every surface of the host shares, over what the earlier steps opened. */
function hostShared(input: SurfaceInput, root: RootState): HostShared {
  const { settings, pipeline, servers, events } = input;
  const { config } = settings;
  const warn = (message: string) => events.emit('warning', message);
  return {
    registry: pipeline.registry,
    pipelineDeps: pipeline.pipelineDeps,
    pipelines: pipeline.pipelines,
    approval: pipeline.approval,
    breaker: pipeline.breaker,
    invalidateChecks: pipeline.invalidateChecks,
    config,
    state: input.state,
    quotas: new Quotas({ store: input.state, clock: settings.clock, warn }),
    ...(input.audit ? { audit: input.audit } : {}),
    report: hostReport(input, root.startupMs),
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    observers: callObservers(input.audit, events, pipeline.breaker),
    approvers: new Set(),
    ...(config.search.embedder ? { embeddings: new EmbeddingStore(config.search.embedder, warn) } : {}),
    sessions: new SessionStore(config.search.sessions, settings.clock, input.state, warn),
    isClosed: root.isClosed,
    async acceptDefinitions(request) {
      if (!servers) throw new UsageError('acceptDefinitions: the config has no mcpServers');
      const accepted = servers.servers.accept(request ?? {});
      if (accepted.length) await root.caughtUp();
      return accepted;
    },
  };
}

/** The report of one surface's exposure (`explain`). */
function hostReport(input: SurfaceInput, startupMs: () => number): HostShared['report'] {
  const { pipeline } = input;
  // The report of a plugin whose commands run in the shell sandbox (the terminal) needs this machine's
  // launcher support: probed once per process (probe.ts caches it), and never for a host without one.
  const commandsSandboxed = () =>
    pipeline.registry.loaded().some((p) => p.source.firstParty?.commands === 'shell-sandbox');
  return (exposure, search, approval) =>
    explainHost({
      registry: pipeline.registry,
      exposure,
      config: input.settings.config,
      protect: input.entries.protect,
      startupMs: startupMs(),
      probes: pipeline.cache.probes,
      extractionPoolStarted: input.runners.extractionStarted(),
      loadWarnings: input.loaded.warnings,
      search,
      approval: (record) => approval.reasonFor(record),
      support: commandsSandboxed() ? probeSandbox() : undefined,
      audit: input.audit?.report(),
      breakers: pipeline.breaker?.report(),
    });
}

/**
 * Who sees every call, in this order (the first outermost): the audit log (config `audit`), the host's `call`
 * listeners, the OpenTelemetry spans, the circuit breaker.
 */
function callObservers(
  audit: AuditLog | undefined,
  events: HostEmitter,
  breaker: CircuitBreaker | undefined,
): DispatchObserver[] {
  const monitor = new CallMonitor(
    () => events.listenerCount('call') > 0,
    (record) => events.emit('call', record),
  );
  return [...(audit ? [audit] : []), monitor, dispatchSpans, ...(breaker ? [breakerObserver(breaker)] : [])];
}
