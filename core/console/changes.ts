/**
 * What changed between two reports of one host, in words for the operator:
 * tools that went from exposed to hidden or back (with the reason), plugins
 * that were reloaded, failed or changed their tools, and MCP servers whose
 * connection state moved. The console diffs the report before a host 'change'
 * against the one after it; a changed MCP tool definition is a change too.
 */
import type { HostReport, PluginReport, ToolReport } from '../explain/public-types.js';
import type { DefinitionChange } from '../runners/connection-report.js';
import type { Change } from './api-types.js';

/** A tool's state in one word. */
function toolState(tool: ToolReport | undefined): string {
  if (!tool) return 'absent';
  if (!tool.exposed) return 'hidden';
  return tool.deferred ? 'deferred' : 'exposed';
}

function toolChange(name: string, before: ToolReport | undefined, after: ToolReport | undefined): Change | undefined {
  const from = toolState(before);
  const to = toolState(after);
  if (from === to) return undefined;
  const why = to === 'hidden' && after?.reason ? `: ${after.reason}` : '';
  return { kind: 'tool', name, from, to, text: `${name} ${to === 'absent' ? 'removed' : to}${why}` };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function pluginChange(before: PluginReport | undefined, after: PluginReport | undefined): Change | undefined {
  const name = (after ?? before)!.name;
  if (!after) return { kind: 'plugin', name, from: before!.status, to: 'absent', text: 'removed' };
  if (after.status === 'failed' && before?.status !== 'failed')
    return {
      kind: 'plugin',
      name,
      ...(before ? { from: before.status } : {}),
      to: 'failed',
      text: `failed: ${after.error?.code}: ${after.error?.message}`,
    };
  if (!before)
    return {
      kind: 'plugin',
      name,
      to: after.status,
      text:
        after.status === 'failed'
          ? `failed: ${after.error?.code}: ${after.error?.message}`
          : `loaded (${plural(after.tools ?? 0, 'tool')})`,
    };
  if (before.status === 'failed' && after.status === 'loaded')
    return { kind: 'plugin', name, from: 'failed', to: 'loaded', text: `loaded (${plural(after.tools ?? 0, 'tool')})` };
  if (after.mcp) return undefined;
  if (before.loadMs !== after.loadMs || before.tools !== after.tools)
    return { kind: 'plugin', name, text: `reloaded (${plural(after.tools ?? 0, 'tool')})` };
  return undefined;
}

function serverChange(before: PluginReport | undefined, after: PluginReport | undefined): Change | undefined {
  const from = before?.mcp?.state;
  const to = after?.mcp?.state;
  if (!after?.mcp || from === to) return undefined;
  const why = after.mcp.reason ? `: ${after.mcp.reason}` : '';
  return { kind: 'server', name: after.name, ...(from ? { from } : {}), to: to!, text: `${after.name} ${to}${why}` };
}

/** The changes from `before` to `after`: tools first, then plugins and servers. */
export function diffReports(before: HostReport, after: HostReport): Change[] {
  const changes: Change[] = [];
  const beforeTools = new Map(before.tools.map((t) => [t.name, t]));
  const afterTools = new Map(after.tools.map((t) => [t.name, t]));
  for (const name of new Set([...beforeTools.keys(), ...afterTools.keys()])) {
    const change = toolChange(name, beforeTools.get(name), afterTools.get(name));
    if (change) changes.push(change);
  }
  const beforePlugins = new Map(before.plugins.map((p) => [p.name, p]));
  const afterPlugins = new Map(after.plugins.map((p) => [p.name, p]));
  for (const name of new Set([...beforePlugins.keys(), ...afterPlugins.keys()])) {
    for (const change of [
      pluginChange(beforePlugins.get(name), afterPlugins.get(name)),
      serverChange(beforePlugins.get(name), afterPlugins.get(name)),
    ])
      if (change) changes.push(change);
  }
  return changes;
}

/** A changed MCP tool definition as a change. */
export function definitionChange(change: DefinitionChange): Change {
  const what = change.mode === 'hold' ? 'held (run toolshed accept)' : 'served with a warning (run toolshed accept)';
  return {
    kind: 'definition',
    name: change.name,
    text: `${change.kind === 'added' ? 'new tool' : 'definition changed'} on mcp:${change.server}: ${what}`,
  };
}
