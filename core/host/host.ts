/**
 * `createToolHost`: loads the config and plugins, wires the pipeline and
 * dispatch, and owns every pool, child process and port until `close()`.
 */
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pluginResources } from '../config/config.js';
import { loadHostConfig } from '../config/host-config.js';
import { CheckCache } from '../expose/check-cache.js';
import { type DefinitionsPipeline, type Exposure } from '../expose/pipeline.js';
import { DescriptionTokens } from '../expose/descriptions.js';
import { failure } from '../../boundary/outcome.js';
import { entryUrl, loadPlugins, resolvePluginEntries, resolvedSources } from '../load/loader.js';
import { protectedPaths } from '../load/protect.js';
import { limiter } from '../load/limiter.js';
import { choosePool, poolSettingOf, poolSettings } from '../load/pool-choice.js';
import { Registry } from '../expose/registry.js';
import { codeExecutionRewriter } from '../expose/code-execution.js';
import { explainHost, type HostReport } from '../explain/explain.js';
import { SessionStore } from '../expose/sessions.js';
import type { SearchReport } from '../expose/search-state.js';
import { createSurface, openScope, type HostShared } from './surface.js';
import { breakerKeys, CircuitBreaker } from '../call/breaker.js';
import { loadHookModules } from '../load/hook-modules.js';
import { traceCheck } from '../observe/tracing.js';
import { ApprovalPolicy } from '../call/approval.js';
import { ThreadRunner } from '../runners/thread/thread-runner.js';
import { ThreadPool } from '../runners/thread/thread-pool.js';
import { runtimePins } from '../runners/thread/runtime-pins.js';
import { pluginPins } from '../load/plugin-pins.js';
import { ChangedPlugins } from '../expose/changed-plugins.js';
import type { PinChange, Pins } from '../../boundary/pins.js';
import { ProcessRunner } from '../runners/process/process-runner.js';
import { sandboxGrants, type PluginScope } from '../load/permissions.js';
import type { PluginSource, ToolRecord } from '../load/types.js';
import type { ToolHost, ToolHostOptions } from './tool-host.js';
import { type ManifestExtractor, type Runner } from '../runners/runner.js';
import { describeRunnerFailure, type RunOutcome } from '../../boundary/runner-failure.js';
import type { CheckVerdict, RawManifest } from '../../boundary/protocol.js';
import type { McpServers } from '../mcp-client/index.js';
import type { DefinitionChange } from '../mcp-client/report.js';
import { UsageError } from '../../boundary/errors.js';

export type { DefinitionsOptions, ToolHost, ToolHostOptions, ViewOptions } from './tool-host.js';

/**
 * Creates a host: loads config and plugins and evaluates which tools are exposed.
 * Throws a ToolshedError (CONFIG_INVALID, CONFIG_UNTRUSTED, TOOLSET_UNKNOWN, TOOLSET_CYCLE) for a host-level problem;
 * a plugin that fails to load is reported in explain() instead.
 * @example
 * const host = await createToolHost({ cwd: process.cwd() });
 * const tools = await host.definitions({ format: 'openai' });
 * const result = await host.dispatch('read_file', '{"path":"README.md"}');
 * await host.close();
 */
export async function createToolHost(options: ToolHostOptions = {}): Promise<ToolHost> {
  const started = performance.now();
  const cwd = path.resolve(options.cwd ?? options.root ?? process.cwd());
  const env = options.env ?? process.env;
  const clock = options.clock ?? { now: () => Date.now() };
  const trust = options.trustConfig === true || process.env.TOOLSHED_TRUST_CONFIG === '1' ? 'accept' : 'check';
  const { config, trust: trusted } = await loadHostConfig({ ...options, trust }, cwd);
  if (trusted?.note) options.onNotice?.(trusted.note);
  // Accepted without a review (--trust-config): say what, so a log shows it.
  else if (trusted?.changes.length) options.onNotice?.(`accepted a changed config (trustConfig): ${trusted.changes.join('; ')}`);
  // Before any pool starts, so a bad hooks module fails the host with nothing to tear down.
  const configHooks = await loadHookModules(config);
  const registry = new Registry();
  const runners: Runner[] = [];
  const pipelines = new Set<DefinitionsPipeline>();
  // Something that hides or shows tools changed (a circuit, a plugin's code): every surface recomputes now, so 'change' fires.
  const recomputeAll = () => {
    for (const pipeline of pipelines) {
      pipeline.reset();
      pipeline.current().catch(() => {});
    }
  };

  // Toolshed's own files that workers import, pinned once per process (see sandbox/pins.ts); each
  // trusted plugin's are pinned as it loads. A worker refuses what changed: its plugin is withdrawn.
  const runtime = runtimePins();
  const changed = new ChangedPlugins();

  // Trusted plugins without env grants share one pool sized to limits.threads; one holding env
  // grants gets a small pool of its own unless its entry says `pool: 'shared'` (pool-choice.ts).
  const poolOf = (threads = config.limits.threads) =>
    new ThreadPool({ memoryMb: config.limits.memoryMb, threads, maxQueue: config.limits.maxQueue, maxQueueTotal: config.limits.maxQueueTotal, idleTimeoutMs: config.limits.idleTimeoutMs, runtime });
  let sharedPool: ThreadPool | undefined;
  const pools = poolSettings(config);
  const threadRunner = (source: PluginSource, workerEnv: Record<string, string>, scope?: PluginScope, pins?: Pins) => {
    const { threads, ...placement } = choosePool(workerEnv, poolSettingOf(pools, source), config.limits.threads);
    const pool = placement.kind === 'own' ? poolOf(threads) : (sharedPool ??= poolOf());
    const onChanged = (change: PinChange) => {
      if (changed.record(source.name, change)) recomputeAll();
    };
    return new ThreadRunner({ entry: entryUrl(source), name: source.name, cwd: config.root, ...(scope ? { scope } : {}), env: workerEnv, pool, placement, ...(pins ? { pins } : {}), onChanged });
  };

  // Untrusted plugins run in their own sandboxed child process. Their grants are
  // read when the child starts (after loading), from the plugin's effective permissions.
  const processRunner = (source: PluginSource, workerEnv: Record<string, string>, granted: boolean, scope?: PluginScope) =>
    new ProcessRunner({
      name: source.name,
      entry: entryUrl(source),
      dir: source.dir,
      dependencyDirs: source.dependencyDirs,
      cwd: config.root,
      ...(scope ? { scope } : {}),
      env: workerEnv,
      ...(granted ? { grants: () => sandboxGrants(registry.loaded().find((p) => p.source === source)?.permissions.effective, config.dir) } : {}),
      memoryMb: config.limits.memoryMb,
      resources: pluginResources(config, source),
      threads: config.limits.threads,
      maxQueue: config.limits.maxQueue,
      maxResultChars: config.limits.maxResultChars,
      idleTimeoutMs: config.limits.idleTimeoutMs,
    });

  // Manifests of thread-tier plugins are extracted in one short-lived pool with an empty env;
  // an untrusted plugin's is extracted in its own sandbox, with no env and no grants. Both wait
  // their turn (one per extraction thread, one child per core), so any number of plugins load
  // and limits.loadTimeoutMs counts from when a plugin's extraction starts.
  const extractionThreads = Math.max(1, Math.min(2, config.limits.threads));
  const threadTurn = limiter(extractionThreads);
  const processTurn = limiter(Math.max(1, os.availableParallelism()));
  let extractor: ThreadPool | undefined;
  let sandboxExtractions = 0;
  const extract = (source: PluginSource, pins?: Pins): Promise<RunOutcome<RawManifest>> => {
    const timeoutMs = config.limits.loadTimeoutMs;
    if (source.trust === 'untrusted') {
      return processTurn(async () => {
        sandboxExtractions++;
        const sandbox: ManifestExtractor = processRunner(source, {}, false);
        try {
          return await sandbox.extract(entryUrl(source), timeoutMs);
        } finally {
          await sandbox.close();
        }
      });
    }
    return threadTurn(() => {
      extractor ??= poolOf(extractionThreads);
      const entry = entryUrl(source);
      return extractor.run<RawManifest>({ kind: 'manifest', entry, ...(pins ? { pins } : {}) }, { key: entry, timeoutMs, hardMs: timeoutMs });
    });
  };

  // Problems found while loading that do not stop it; explain lists them with the pipeline's warnings.
  const loadWarnings: string[] = [];

  // Set once the root scope exists; a check's ctx.log (and an MCP server's stderr) goes to the host's 'log' event.
  let log: (entry: { plugin: string; tool?: string; message: string }) => void = () => {};

  // Every plugin entry is resolved first: the protected paths hold each plugin's folder, and
  // every plugin and MCP server gets them before anything of theirs runs.
  const resolved = resolvePluginEntries(config);
  const protect = protectedPaths(config, resolvedSources(resolved));

  // MCP servers start while plugins load; the SDK is loaded only for a config that has some.
  let mcp: McpServers | undefined;
  let onMcpChange: (() => void) | undefined;
  // A changed tool definition: the 'definition-changed' event once the host is up; before that, a notice (explain has it too).
  let onDefinitionChanged = (change: DefinitionChange) => options.onNotice?.(`the MCP server ${change.server} changed the definition of ${change.name} since it was accepted (${change.mode === 'hold' ? 'held' : 'served with a warning'}); toolshed accept ${change.server} shows the difference`);
  if (Object.keys(config.mcpServers).length) {
    const { McpServers } = await import('../mcp-client/index.js');
    mcp = new McpServers({ config, env, protect, onChange: () => onMcpChange?.(), onLog: (entry) => log(entry), onDefinitionChanged: (change) => onDefinitionChanged(change) });
    runners.push(...mcp.runners());
  }
  const mcpStarted = mcp?.start();

  let plugins;
  try {
    plugins = await loadPlugins({
      config,
      env,
      extract,
      resolved,
      protect,
      pin: pluginPins,
      warn: (message) => loadWarnings.push(message),
      createRunner: (source, workerEnv, scope, pins) => {
        const runner = source.trust === 'untrusted' ? processRunner(source, workerEnv, true, scope) : threadRunner(source, workerEnv, scope, pins);
        runners.push(runner);
        return runner;
      },
    });
  } finally {
    await extractor?.close();
  }
  await mcpStarted;
  const setPlugins = () => registry.setPlugins(mcp ? [...plugins, ...mcp.plugins(plugins)] : plugins, config.prefer);
  setPlugins();

  const cache = new CheckCache({ ttlMs: config.checks.ttlMs, graceMs: config.checks.graceMs, clock });
  const probe = async (record: ToolRecord): Promise<CheckVerdict> => {
    const outcome = await record.plugin.runner.check(
      { checkId: record.manifest.checkId!, timeoutMs: config.checks.timeoutMs },
      {
        log: (message) => log({ plugin: record.plugin.source.name, tool: record.name, message }),
        callTool: async () => failure('PERMISSION_DENIED', 'callTool is not available inside availability checks'),
      },
    );
    if (outcome.ok) return outcome.value;
    if ('failure' in outcome) return { ok: false, reason: `check ${describeRunnerFailure(outcome.failure)}` };
    if (outcome.error.code === 'TOOL_TIMEOUT') return { ok: false, reason: `check timed out after ${config.checks.timeoutMs} ms` };
    return { ok: false, reason: `check threw: ${outcome.error.message}` };
  };
  const runCheck = (record: ToolRecord): Promise<CheckVerdict> => traceCheck(record, () => probe(record));

  let closed = false;
  let startupDone: number | undefined;
  const startupMs = () => startupDone ?? performance.now() - started;
  let approval: ApprovalPolicy;
  try {
    approval = new ApprovalPolicy(config.approve, registry, config);
  } catch (error) {
    // An unknown name in approve fails the host like one in enable: nothing may stay running.
    await Promise.all(runners.map((r) => r.close()));
    throw error;
  }
  // A circuit opening or closing changes what is exposed.
  const breaker = new CircuitBreaker(config.limits.breaker, clock, recomputeAll);
  // A plugin whose code changed is withdrawn until restart; otherwise a tool may be out of service for its circuit.
  const outOfService = (record: ToolRecord) => {
    const reason = changed.any ? changed.reasonFor(record) : undefined;
    if (reason) return { reason, until: Infinity, kind: 'changed' as const };
    // An MCP tool whose definition changed is held until the operator accepts it (definition-pins.ts).
    const held = mcp?.definitions.anyHeld ? mcp.definitions.heldReason(record.plugin.source.name, record.name) : undefined;
    if (held) return { reason: held, until: Infinity, kind: 'definition' as const };
    return breaker.idle ? undefined : breaker.openOf(breakerKeys(record.name, record.plugin.source.name));
  };
  const shared: HostShared = {
    registry,
    config,
    pipelineDeps: {
      registry,
      config: () => config,
      cache,
      clock,
      availability: { env, platform: process.platform, runCheck, outOfService, someOutOfService: () => changed.any || !breaker.idle || mcp?.definitions.anyHeld === true },
      // An embedder's rewriters come first, so they can replace a built-in step.
      rewriters: [...(options.rewriters ?? []), codeExecutionRewriter(() => config)],
      tokens: new DescriptionTokens(),
    },
    report: (exposure: Exposure | undefined, search: SearchReport): HostReport =>
      explainHost({ registry, exposure, config, protect, startupMs: startupMs(), probes: cache.probes, extractionPoolStarted: extractor !== undefined || sandboxExtractions > 0, loadWarnings, search, approval: (record) => approval.reasonFor(record) }),
    sessions: new SessionStore(config.search.sessions, clock),
    isClosed: () => closed,
    invalidateChecks() {
      cache.invalidate();
      for (const pipeline of pipelines) pipeline.reset();
    },
    pipelines,
    approval,
    breaker,
    async acceptDefinitions(request) {
      if (!mcp) throw new UsageError('acceptDefinitions: the config has no mcpServers');
      const accepted = mcp.accept(request ?? {});
      if (accepted.length) await mcpCaughtUp();
      return accepted;
    },
  };
  const root = openScope(shared, undefined, undefined, options.onApproval);
  log = root.log;
  for (const hooks of configHooks) root.hooks.add(hooks);
  const pipeline = root.pipeline;
  // A server connected, went away or re-listed: rebuild the registry and recompute until caught up,
  // so 'change' fires now (views follow the root's change).
  const mcpCaughtUp = async () => {
    setPlugins();
    let exposure = await pipeline.current();
    while (!closed && exposure.generation !== registry.generation) exposure = await pipeline.current();
  };
  onMcpChange = () => void mcpCaughtUp().catch((error: Error) => root.emitter.emit('warning', `MCP server change: ${error?.message ?? String(error)}`));
  onDefinitionChanged = (change) => void root.emitter.emit('definition-changed', change);

  const host: ToolHost = createSurface(shared, root, {
    isClosed: () => closed,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...runners.map((r) => r.close()), sharedPool?.close()]);
      root.emitter.removeAllListeners();
    },
  });

  try {
    await pipeline.current();
    startupDone = performance.now() - started;
  } catch (error) {
    await host.close();
    throw error;
  }
  return host;
}
