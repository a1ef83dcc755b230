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
  const pools = new HostPools(config.limits);
  const changed = new ChangedPlugins();
  const changeListeners: Array<() => void> = [];
  const onChanged = (plugin: string, change: PinChange) => {
    if (changed.record(plugin, change)) for (const listener of changeListeners) listener();
  };
  const threadRunner = threadRunners(config, pools, onChanged);
  const processRunner = processRunners(config);
  const extraction = manifestExtraction(config.limits, pools, processRunner);
  const runners: Runner[] = [];
  return {
    runnerFor(plan) {
      const runner =
        plan.source.trust === 'untrusted' ? processRunner(plan.source, plan.env, plan) : threadRunner(plan);
      runners.push(runner);
      return runner;
    },
    extract: extraction.extract,
    endExtraction: extraction.end,
    extractionStarted: extraction.started,
    changed,
    onChanged: (listener) => void changeListeners.push(listener),
    async close() {
      await Promise.all([...runners.map((r) => r.close()), extraction.end(), pools.close()]);
    },
  };
}

/** The thread pools of one host: the shared one, made on first use, and the pools it makes for others. */
class HostPools {
  // Toolshed's own files that workers import, pinned once per process (see boundary/pins.ts); each
  // trusted plugin's are pinned as it loads. A worker refuses what changed: its plugin is withdrawn.
  private readonly runtime = runtimePins();
  private sharedPool: ThreadPool | undefined;

  constructor(private readonly limits: ResolvedConfig['limits']) {}

  /** A new pool under the host's limits. */
  pool(threads = this.limits.threads, tasksPerThread = 1): ThreadPool {
    const { limits } = this;
    return new ThreadPool({
      memoryMb: limits.memoryMb,
      threads,
      tasksPerThread,
      maxQueue: limits.maxQueue,
      maxQueueTotal: limits.maxQueueTotal,
      idleTimeoutMs: limits.idleTimeoutMs,
      runtime: this.runtime,
    });
  }

  /** The pool trusted plugins without a pool of their own share. */
  shared(): ThreadPool {
    return (this.sharedPool ??= this.pool());
  }

  async close(): Promise<void> {
    await this.sharedPool?.close();
  }
}

/** The factory of thread-tier runners: each in the shared pool or one of its own (pool-choice.ts). */
function threadRunners(
  config: ResolvedConfig,
  pools: HostPools,
  onChanged: (plugin: string, change: PinChange) => void,
): (plan: RunnerPlan) => Runner {
  const { limits } = config;
  const settings = poolSettings(config);
  return ({ source, env, scope, pins }) => {
    // The first-party terminal's calls wait on the commands it runs in child processes.
    const waits = source.firstParty?.commands === 'shell-sandbox';
    const { threads, tasksPerThread, ...placement } = choosePool(
      env,
      poolSettingOf(settings, source),
      limits.threads,
      waits,
    );
    const pool = placement.kind === 'own' ? pools.pool(threads, tasksPerThread) : pools.shared();
    return new ThreadRunner({
      entry: entryUrl(source),
      name: source.name,
      cwd: config.root,
      scope,
      env,
      pool,
      placement,
      ...(pins ? { pins } : {}),
      onChanged: (change) => onChanged(source.name, change),
    });
  };
}

/** Makes a process-tier runner: the plugin's own sandboxed child, with the grants loading computed. */
type ProcessRunnerOf = (
  source: PluginSource,
  env: Record<string, string>,
  plan?: Pick<RunnerPlan, 'scope' | 'grants'>,
) => ProcessRunner;

function processRunners(config: ResolvedConfig): ProcessRunnerOf {
  const { limits } = config;
  return (source, env, plan) =>
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
}

/**
 * Manifests of thread-tier plugins are extracted in one short-lived pool with an empty env;
 * an untrusted plugin's is extracted in its own sandbox, with no env and no grants. Both wait
 * their turn (one per extraction thread, one child per core), so any number of plugins load
 * and limits.loadTimeoutMs counts from when a plugin's extraction starts.
 */
function manifestExtraction(limits: ResolvedConfig['limits'], pools: HostPools, processRunner: ProcessRunnerOf) {
  const extractionThreads = Math.max(1, Math.min(2, limits.threads));
  const manifests = new ManifestPool(() => pools.pool(extractionThreads));
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
    extract,
    end: () => manifests.close(),
    started: () => manifests.started || sandboxExtractions > 0,
  };
}
