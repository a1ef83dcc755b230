/**
 * Step 5 of `createToolHost`: what every surface's definitions pipeline
 * reads. The registry of the loaded plugins (and MCP servers), the check
 * cache and how a check runs, the circuit breaker, approval, and why a tool
 * is out of service. Each surface (the host, each view) opens its own
 * pipeline over these (surface.ts).
 */
import { CheckCache } from '../expose/check-cache.js';
import type { CheckVerdict } from '../../boundary/protocol.js';
import { DescriptionTokens } from '../expose/descriptions.js';
import { Registry } from '../expose/registry.js';
import { codeExecutionRewriter } from '../expose/code-execution.js';
import type { DefinitionsPipeline } from '../expose/pipeline.js';
import type { SchemaRewriter } from '../expose/public-types.js';
import { breakerKeys, CircuitBreaker } from '../call/breaker.js';
import { ApprovalPolicy } from '../call/approval.js';
import { traceCheck } from '../call/tracing.js';
import { failure } from '../../boundary/outcome.js';
import { describeRunnerFailure } from '../../boundary/runner-failure.js';
import type { PluginLoadResult, ToolRecord } from '../load/types.js';
import type { HostSettings } from './open-config.js';
import type { HostRunners } from './open-runners.js';
import type { HostServers } from './start-servers.js';
import type { HostShared } from './surface.js';
import type { HostEvents } from './events.js';

/** What opening the pipeline needs. */
interface PipelineInput {
  settings: HostSettings;
  plugins: PluginLoadResult[];
  runners: HostRunners;
  servers: HostServers | undefined;
  /** an embedder's definitions steps, run before the built-in ones */
  rewriters: SchemaRewriter[] | undefined;
  /** where a check's ctx.log lines go */
  log(entry: HostEvents['log'][0]): void;
}

/** The shared inputs of every surface's pipeline, and what keeps them current. */
export interface HostPipeline
  extends Pick<HostShared, 'registry' | 'pipelineDeps' | 'pipelines' | 'approval' | 'breaker' | 'invalidateChecks'> {
  cache: CheckCache;
  /** rebuilds the registry from the plugins and the servers' latest listings */
  reload(): void;
  /**
   * something that hides or shows tools changed (a circuit, a plugin's code): every surface recomputes now, so 'change'
   * fires
   */
  recomputeAll(): void;
}

/** Opens the registry and the pipeline inputs; throws for an unknown name in `approve`. */
export function openPipeline(input: PipelineInput): HostPipeline {
  const { config, env, clock } = input.settings;
  const { plugins, runners, servers } = input;
  const registry = new Registry();
  const reload = () =>
    registry.setPlugins(servers ? [...plugins, ...servers.plugins(plugins)] : plugins, config.prefer);
  reload();

  const pipelines = new Set<DefinitionsPipeline>();
  const recomputeAll = () => {
    for (const pipeline of pipelines) {
      pipeline.reset();
      pipeline.current().catch(() => {});
    }
  };
  runners.onChanged(recomputeAll);

  const cache = new CheckCache({ ttlMs: config.checks.ttlMs, graceMs: config.checks.graceMs, clock });
  const runCheck = (record: ToolRecord): Promise<CheckVerdict> =>
    traceCheck(record, () => check(record, config.checks.timeoutMs, input.log));
  // An unknown name in approve fails the host like one in enable.
  const approval = new ApprovalPolicy(config.approve, registry, config);
  // A circuit opening or closing changes what is exposed.
  const breaker = new CircuitBreaker(config.limits.breaker, clock, recomputeAll);
  const held = servers?.servers.definitions;
  const { changed } = runners;
  // A plugin whose code changed is withdrawn until restart; otherwise a tool may be out of service for its circuit.
  const outOfService = (record: ToolRecord) => {
    const reason = changed.any ? changed.reasonFor(record) : undefined;
    if (reason) return { reason, until: Infinity, kind: 'changed' as const };
    // An MCP tool whose definition changed is held until the operator accepts it (definition-pins.ts).
    const heldReason = held?.anyHeld ? held.heldReason(record.plugin.source.name, record.name) : undefined;
    if (heldReason) return { reason: heldReason, until: Infinity, kind: 'definition' as const };
    return breaker.idle ? undefined : breaker.openOf(breakerKeys(record.name, record.plugin.source.name));
  };

  return {
    registry,
    cache,
    pipelines,
    approval,
    breaker,
    reload,
    recomputeAll,
    pipelineDeps: {
      registry,
      config: () => config,
      cache,
      clock,
      availability: {
        env,
        platform: process.platform,
        runCheck,
        outOfService,
        someOutOfService: () => changed.any || !breaker.idle || held?.anyHeld === true,
      },
      // An embedder's rewriters come first, so they can replace a built-in step.
      rewriters: [...(input.rewriters ?? []), codeExecutionRewriter(() => config)],
      tokens: new DescriptionTokens(),
    },
    invalidateChecks() {
      cache.invalidate();
      for (const pipeline of pipelines) pipeline.reset();
    },
  };
}

/** Runs `record`'s custom check in its plugin's tier; a failure is a verdict that hides the tool, with the reason. */
async function check(record: ToolRecord, timeoutMs: number, log: PipelineInput['log']): Promise<CheckVerdict> {
  const outcome = await record.plugin.runner.check(
    { checkId: record.manifest.checkId!, timeoutMs },
    {
      log: (message, level) =>
        log({ plugin: record.plugin.source.name, tool: record.name, message, level: level ?? 'info' }),
      callTool: async () => failure('PERMISSION_DENIED', 'callTool is not available inside availability checks'),
    },
  );
  if (outcome.ok) return outcome.value;
  if ('failure' in outcome) return { ok: false, reason: `check ${describeRunnerFailure(outcome.failure)}` };
  if (outcome.error.code === 'TOOL_TIMEOUT') return { ok: false, reason: `check timed out after ${timeoutMs} ms` };
  return { ok: false, reason: `check threw: ${outcome.error.message}` };
}
