/**
 * The host's report: every plugin (status, tier, load time, manifest source),
 * every toolset, the layer counts, and every tool with its state and reason.
 * `toolshed`, `toolshed explain` and `host.explain()` all print this.
 */
import { TOOLSHED_VERSION } from '../../boundary/version.js';
import { checkKey } from '../expose/availability.js';
import type { Exposure } from '../expose/exposure.js';
import type { ResolvedConfig } from '../config/config.js';
import type { Registry } from '../expose/registry.js';
import type { ToolRecord } from '../load/types.js';
import type { ProtectedPath } from '../../boundary/plugin-api.js';
import { protectionReport } from './protection-report.js';
import type { ApprovalReason } from '../call/approval.js';
import { enforcement } from './enforcement.js';
import type { AuditReport, BreakerReport, SearchReport } from '../call/public-types.js';
import { readDialect } from '../schema/schema-dialect.js';
import type { SandboxSupport } from '../../boundary/launch/launch.js';
import type { HostReport, PluginReport, ToolReport } from './public-types.js';

export type { HostReport, PluginReport, ToolReport };

/**
 * The dialect a tool's parameters are read in; a tool made without a reading (toolshed's own) is read by the plugin
 * rule.
 */
function schemaReading(record: ToolRecord): NonNullable<ToolReport['schema']> {
  if (record.manifest.dialect) return record.manifest.dialect;
  try {
    return readDialect(record.manifest.parameters, 'plugin');
  } catch (error) {
    return { dialect: 'unsupported', from: (error as Error).message };
  }
}

/** What the report is built from: the registry, the last exposure and the host's own figures. */
interface ExplainInput {
  registry: Registry;
  exposure: Exposure | undefined;
  config: ResolvedConfig;
  /** the host's protected paths */
  protect?: readonly ProtectedPath[];
  startupMs: number;
  probes: ReadonlyMap<string, number>;
  extractionPoolStarted: boolean;
  /** problems found while loading that did not stop it */
  loadWarnings?: readonly string[];
  search: SearchReport;
  /** why a tool's calls need approval (config `approve`) */
  approval?: (record: ToolRecord) => ApprovalReason | undefined;
  /**
   * what this machine's sandbox launcher can do, as the host probed it; undefined when no plugin's commands run in the
   * shell sandbox
   */
  support: SandboxSupport | undefined;
  /** the audit log's target and counts, when it is on */
  audit?: AuditReport | undefined;
  /** the circuit breaker's open, probing and counting circuits */
  breakers?: BreakerReport[] | undefined;
}

/** Builds the report from the registry and the last exposure. */
export function explainHost(input: ExplainInput): HostReport {
  const { registry, exposure, config } = input;
  return {
    version: TOOLSHED_VERSION,
    config: { file: config.file ?? null, dir: config.dir, root: config.root },
    startupMs: round(input.startupMs),
    extractionPoolStarted: input.extractionPoolStarted,
    evaluated: exposure !== undefined,
    plugins: registry.plugins.map((plugin) => pluginReport(plugin, input.support)),
    toolsets: exposure ? toolsetReports(exposure, registry) : [],
    counts: exposure?.counts ?? { registered: registry.tools.size, selected: 0, available: 0, exposed: 0 },
    tools: exposure ? toolReports(exposure, input) : [],
    conflicts: [...registry.conflicts],
    warnings: [
      ...(input.loadWarnings ?? []),
      ...unmatchedGrantWarnings(registry.plugins),
      ...(exposure?.warnings ?? []),
    ],
    search: input.search,
    protection: protectionReport(registry.plugins, input.protect ?? [], input.support),
    ...(input.audit ? { audit: input.audit } : {}),
    ...(input.breakers?.length ? { breakers: input.breakers } : {}),
  };
}

/** One plugin's line: a failed one with its error and what was known of it, a loaded one with its runner's figures. */
function pluginReport(p: Registry['plugins'][number], support: SandboxSupport | undefined): PluginReport {
  if (p.status === 'failed') {
    const known = { from: p.known.from, toolsets: p.known.toolsets, tools: p.known.tools.map((t) => t.name) };
    return {
      name: p.name,
      specifier: p.specifier,
      status: 'failed',
      loadMs: round(p.loadMs),
      error: { code: p.error.code, message: p.error.message },
      known,
    };
  }
  const stats = p.runner.stats();
  const protections = p.runner.protections();
  const mcp = p.runner.connection?.();
  const placement = p.runner.placement?.();
  return {
    name: p.source.name,
    specifier: p.source.specifier,
    status: 'loaded',
    loadMs: round(p.loadMs),
    version: p.source.version,
    builtin: p.source.builtin,
    trust: p.source.trust,
    tier: p.runner.tier,
    manifestSource: p.manifestSource,
    tools: p.manifest.tools.length,
    env: p.env,
    permissions: { ...p.permissions, enforced: enforcement(p, protections, support) },
    pool: {
      started: stats.started,
      threads: stats.threads,
      completed: stats.completed,
      inFlight: stats.inFlight,
      queued: Math.max(0, stats.inFlight - stats.capacity),
      guardRefused: stats.guard.refused,
      messagesDropped: stats.dropped.count,
      ...(stats.dropped.last !== undefined ? { lastDropped: stats.dropped.last } : {}),
      ...(placement ? { kind: placement.kind, reason: placement.reason } : {}),
    },
    ...(protections ? { protections } : {}),
    ...(mcp ? { mcp } : {}),
  };
}

/** Every toolset of the exposure, by name, with how many of its tools are registered. */
function toolsetReports(exposure: Exposure, registry: Registry): HostReport['toolsets'] {
  return [...exposure.toolsets.values()]
    .map((t) => ({
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      includes: t.includes,
      tools: t.tools.filter((tool) => registry.tools.has(tool)).length,
      definedBy: t.definedBy,
      ...(t.unavailable.length ? { unavailable: t.unavailable.map((u) => `${u.plugin} (${u.code})`) } : {}),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Every tool of the exposure, by name: its state, probes, annotations, approval and schema dialect. */
function toolReports(exposure: Exposure, input: ExplainInput): ToolReport[] {
  return [...exposure.states.values()]
    .map((state) => {
      const record = input.registry.tools.get(state.name);
      const key = record ? checkKey(record) : undefined;
      // The report's own warnings list: states share one empty list.
      const tool: ToolReport = key
        ? { ...state, warnings: [...state.warnings], probes: input.probes.get(key) ?? 0 }
        : { ...state, warnings: [...state.warnings] };
      if (record && Object.keys(record.manifest.annotations).length) tool.annotations = record.manifest.annotations;
      const approval = record ? input.approval?.(record) : undefined;
      if (approval) tool.approval = approval;
      if (record) tool.schema = schemaReading(record);
      return tool;
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/**
 * The grants of untrusted plugins that match nothing they request ("plugin P: grant.fsWrite 'x' matches no folder…");
 * `--strict` fails on them.
 */
function unmatchedGrantWarnings(
  plugins: ReadonlyArray<{ status: string; source?: { name: string }; permissions?: { unmatched?: string[] } }>,
): string[] {
  return plugins.flatMap((p) =>
    p.status === 'loaded' && p.source
      ? (p.permissions?.unmatched ?? []).map((note) => `plugin ${p.source!.name}: ${note}`)
      : [],
  );
}
