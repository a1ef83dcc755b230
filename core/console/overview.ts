/**
 * The console's read-only answers built from a host's report: the overview
 * (`GET api/overview`: the funnel, plugins, every tool's state) and the
 * sessions (`GET api/sessions`). Everything comes from explain, which names
 * environment variables and headers but never holds their values.
 */
import type { HostReport } from '../explain/public-types.js';
import type { Identity } from '../../boundary/identity.js';
import type { SessionSnapshot } from '../mcp-server/public-types.js';
import { shownIdentity } from './calls.js';
import type { Overview, Serving, SessionLine, SessionsAnswer, ToolLine } from './api-types.js';
import type { BreakerReport } from '../call/public-types.js';

/** One tool's line in the overview. */
function toolLine(tool: HostReport['tools'][number], plugins: Map<string, HostReport['plugins'][number]>): ToolLine {
  const plugin = plugins.get(tool.plugin);
  return {
    name: tool.name,
    plugin: tool.plugin,
    toolset: tool.toolset,
    exposed: tool.exposed,
    ...(tool.deferred ? { deferred: true } : {}),
    ...(tool.layer !== undefined ? { layer: tool.layer } : {}),
    ...(tool.reason !== undefined ? { reason: tool.reason } : {}),
    ...(tool.approval !== undefined ? { approval: tool.approval } : {}),
    ...(plugin?.tier !== undefined ? { tier: plugin.tier } : {}),
    ...(plugin?.trust !== undefined ? { trust: plugin.trust } : {}),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
  };
}

/** `GET api/overview`. */
export function overview(report: HostReport, serving: Serving, identity: Identity | undefined): Overview {
  const plugins = new Map(report.plugins.map((p) => [p.name, p]));
  return {
    version: report.version,
    config: report.config,
    startupMs: report.startupMs,
    evaluated: report.evaluated,
    serving,
    ...(identity ? { identity: shownIdentity(identity) } : {}),
    funnel: { ...report.counts, deferred: report.search.deferred },
    plugins: report.plugins,
    toolsets: report.toolsets,
    conflicts: report.conflicts,
    warnings: report.warnings,
    tools: report.tools
      .map((tool) => toolLine(tool, plugins))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    protection: report.protection,
    ...(report.audit ? { audit: report.audit } : {}),
    search: report.search,
  };
}

/** `GET api/sessions`: serve's MCP sessions, else the sessions the host's search knows of; the breakers either way. */
export function sessionsAnswer(
  report: HostReport,
  served: SessionSnapshot[] | undefined,
  breakers: BreakerReport[],
  now = Date.now(),
): SessionsAnswer {
  const loaded = new Map(report.search.sessions.map((s) => [s.id ?? 'default', s]));
  const sessions: SessionLine[] = served
    ? served.map((s) => ({
        id: s.id,
        ...(s.identity ? { identity: shownIdentity(s.identity) } : {}),
        ...(s.client !== undefined ? { client: s.client } : {}),
        openedAt: new Date(s.openedAt).toISOString(),
        lastSeen: new Date(s.lastSeen).toISOString(),
        loaded: loaded.get(s.id)?.tools ?? [],
      }))
    : [...loaded.entries()].map(([id, s]) => ({
        id,
        lastSeen: new Date(now - s.idleMs).toISOString(),
        loaded: s.tools,
      }));
  return { serving: served !== undefined, sessions, breakers };
}
