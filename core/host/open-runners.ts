/**
 * Step 2 of `createToolHost`: where plugins' code will run. Nothing starts
 * here: this makes the factories the loading step calls, one runner per
 * plugin as it loads, and the manifest extraction both tiers do while loading.
 *
 * Trusted plugins without env grants share one pool sized to limits.threads; one holding env
 * grants gets a small pool of its own unless its entry says `pool: 'shared'` (pool-choice.ts).
 * Untrusted plugins run in their own sandboxed child process, started with the grants loading computed.
 */
import os from 'node:os';
import { pluginResources, type ResolvedConfig } from '../config/config.js';
import { entryUrl, type RunnerPlan } from '../load/loader.js';
import { limiter } from '../load/limiter.js';
import { choosePool, poolSettingOf, poolSettings } from '../load/pool-choice.js';
import { ChangedPlugins } from '../expose/changed-plugins.js';
import { ThreadRunner } from '../runners/thread/thread-runner.js';
import { ThreadPool } from '../runners/thread/thread-pool.js';
import { ManifestPool } from '../runners/thread/manifest-pool.js';
import { runtimePins } from '../runners/thread/runtime-pins.js';
import { ProcessRunner } from '../runners/process/process-runner.js';
import type { Runner } from '../runners/runner.js';
import type { PluginSource } from '../load/types.js';
import type { PinChange, Pins } from '../../boundary/pins.js';
import type { RawManifest } from '../../boundary/protocol.js';
import type { RunOutcome } from '../../boundary/runner-failure.js';

/** The host's runners: made as plugins load, closed with the host. */
export interface HostRunners {
  /** the runner a loaded plugin's checks and handlers run in */
  runnerFor(plan: RunnerPlan): Runner;
  /** extracts a plugin's manifest in its own tier, waiting its turn */
  extract(source: PluginSource, pins?: Pins): Promise<RunOutcome<RawManifest>>;
  /** loading is over: stops the extraction pool */
  endExtraction(): Promise<void>;
  /** whether a pool or a sandbox had to start to extract manifests */
  extractionStarted(): boolean;
  /** the trusted plugins withdrawn because their pinned code changed */
  changed: ChangedPlugins;
  /** calls `listener` when a plugin is newly withdrawn for changed code (the exposure must be recomputed) */
  onChanged(listener: () => void): void;
  /** closes every runner made, the extraction pool and the shared pool */
  close(): Promise<void>;
}

/** Makes the host's runner factories over `config`'s limits. */
export function openRunners(config: ResolvedConfig): HostRunners {
  const { limits } = config;
  // Toolshed's own files that workers import, pinned once per process (see boundary/pins.ts); each
  // trusted plugin's are pinned as it loads. A worker refuses what changed: its plugin is withdrawn.
  const runtime = runtimePins();
  const poolOf = (threads = limits.threads, tasksPerThread = 1) =>
    new ThreadPool({
      memoryMb: limits.memoryMb,
      threads,
      tasksPerThread,
      maxQueue: limits.maxQueue,
      maxQueueTotal: limits.maxQueueTotal,
      idleTimeoutMs: limits.idleTimeoutMs,
      runtime,
    });
  const runners: Runner[] = [];
  let sharedPool: ThreadPool | undefined;
  const pools = poolSettings(config);
  const changed = new ChangedPlugins();
  const changeListeners: Array<() => void> = [];

  const threadRunner = ({ source, env, scope, pins }: RunnerPlan) => {
    // The first-party terminal's calls wait on the commands it runs in child processes.
    const waits = source.firstParty?.commands === 'shell-sandbox';
    const { threads, tasksPerThread, ...placement } = choosePool(
      env,
      poolSettingOf(pools, source),
      limits.threads,
      waits,
    );
    const pool = placement.kind === 'own' ? poolOf(threads, tasksPerThread) : (sharedPool ??= poolOf());
    const onChanged = (change: PinChange) => {
      if (changed.record(source.name, change)) for (const listener of changeListeners) listener();
    };
    return new ThreadRunner({
      entry: entryUrl(source),
      name: source.name,
      cwd: config.root,
      scope,
      env,
      pool,
      placement,
      ...(pins ? { pins } : {}),
      onChanged,
    });
  };
  const processRunner = (
    source: PluginSource,
    env: Record<string, string>,
    plan?: Pick<RunnerPlan, 'scope' | 'grants'>,
  ) =>
    new ProcessRunner({
      name: source.name,
      entry: entryUrl(source),
      dir: source.dir,
      dependencyDirs: source.dependencyDirs,
      cwd: config.root,
      ...(plan ? { scope: plan.scope, grants: plan.grants } : {}),
      env,
      memoryMb: limits.memoryMb,
      resources: pluginResources(config, source),
      threads: limits.threads,
      maxQueue: limits.maxQueue,
      maxResultChars: limits.maxResultChars,
      idleTimeoutMs: limits.idleTimeoutMs,
    });

  // Manifests of thread-tier plugins are extracted in one short-lived pool with an empty env;
  // an untrusted plugin's is extracted in its own sandbox, with no env and no grants. Both wait
  // their turn (one per extraction thread, one child per core), so any number of plugins load
  // and limits.loadTimeoutMs counts from when a plugin's extraction starts.
  const extractionThreads = Math.max(1, Math.min(2, limits.threads));
  const manifests = new ManifestPool(() => poolOf(extractionThreads));
  const threadTurn = limiter(extractionThreads);
  const processTurn = limiter(Math.max(1, os.availableParallelism()));
  let sandboxExtractions = 0;
  const extract = (source: PluginSource, pins?: Pins): Promise<RunOutcome<RawManifest>> => {
    const timeoutMs = limits.loadTimeoutMs;
    if (source.trust === 'trusted') return threadTurn(() => manifests.extract(entryUrl(source), timeoutMs, pins));
    return processTurn(async () => {
      sandboxExtractions++;
      const sandbox = processRunner(source, {});
      try {
        return await sandbox.extract(entryUrl(source), timeoutMs);
      } finally {
        await sandbox.close();
      }
    });
  };

  return {
    runnerFor(plan) {
      const runner =
        plan.source.trust === 'untrusted' ? processRunner(plan.source, plan.env, plan) : threadRunner(plan);
      runners.push(runner);
      return runner;
    },
    extract,
    endExtraction: () => manifests.close(),
    extractionStarted: () => manifests.started || sandboxExtractions > 0,
    changed,
    onChanged: (listener) => void changeListeners.push(listener),
    async close() {
      await Promise.all([...runners.map((r) => r.close()), manifests.close(), sharedPool?.close()]);
    },
  };
}
