/**
 * What a plugin's `ctx.callTool` may reach. A trusted plugin reaches every
 * exposed tool. An untrusted plugin reaches its own tools, and others only
 * when it requests them and the operator grants them (`callTools`: tool or
 * toolset names; the effective list is the intersection, like every grant).
 * Every untrusted plugin in a call's chain is checked, so a tool it called
 * (execute_code, say) reaches on its behalf only what it may reach itself.
 */
import { ToolsetResolver, type Toolset } from '../expose/toolsets.js';
import { failure, type CallOutcome } from '../../boundary/outcome.js';
import { describeChain, type CallContext } from './chain.js';
import type { Exposure } from '../expose/exposure.js';
import type { Registry } from '../expose/registry.js';
import type { LoadedPlugin, ToolRecord } from '../load/types.js';

/** Tools each plugin's callTools entries expand to, per exposure (toolsets can change with it). */
const expansions = new WeakMap<Map<string, Toolset>, Map<LoadedPlugin, ReadonlySet<string>>>();

function expand(entries: readonly string[], toolsets: Map<string, Toolset>, known: ReadonlySet<string>): Set<string> {
  const resolver = new ToolsetResolver(toolsets, known);
  const tools = new Set<string>();
  for (const entry of entries) {
    if (known.has(entry)) tools.add(entry);
    if (toolsets.has(entry)) for (const tool of resolver.expand(entry)) tools.add(tool);
  }
  return tools;
}

function allowedFor(plugin: LoadedPlugin, exposure: Exposure, registry: Registry): ReadonlySet<string> {
  let perPlugin = expansions.get(exposure.toolsets);
  if (!perPlugin) expansions.set(exposure.toolsets, (perPlugin = new Map()));
  let allowed = perPlugin.get(plugin);
  if (!allowed) {
    allowed = expand(plugin.permissions.effective.callTools ?? [], exposure.toolsets, new Set(registry.tools.keys()));
    perPlugin.set(plugin, allowed);
  }
  return allowed;
}

/** Whether untrusted `plugin` may have `target` run on its behalf. */
function mayCall(plugin: LoadedPlugin, target: ToolRecord, exposure: Exposure, registry: Registry): boolean {
  return (
    plugin.source.trust !== 'untrusted' ||
    target.plugin === plugin ||
    allowedFor(plugin, exposure, registry).has(target.name)
  );
}

function denial(plugin: LoadedPlugin, target: ToolRecord, context: CallContext, immediate: boolean): CallOutcome {
  const name = plugin.source.name;
  const requested = plugin.permissions.requested.callTools ?? [];
  const asks = requested.includes(target.name) || requested.includes(target.manifest.toolset);
  const how =
    `add callTools: ['${target.name}'] to the grant of ${name} in the config` +
    `${asks ? '' : ` (and ${name} must request it in its permissions.callTools)`}`;
  const who = immediate
    ? `untrusted plugin ${name} may not call ${target.name}`
    : `${target.name} was called on behalf of untrusted plugin ${name}, which may not call it`;
  return failure(
    'PERMISSION_DENIED',
    `${who} (call chain: ${describeChain(context, target.name)}). To allow it, ${how}.`,
  );
}

/** PERMISSION_DENIED when an untrusted plugin in `context`'s chain may not reach `target`, else undefined. */
export function refuseByGrants(
  context: CallContext,
  target: ToolRecord,
  exposure: Exposure,
  registry: Registry,
): CallOutcome | undefined {
  const records = context.records;
  for (let i = records.length - 1; i >= 0; i--) {
    const plugin = records[i]!.plugin;
    if (!mayCall(plugin, target, exposure, registry)) return denial(plugin, target, context, i === records.length - 1);
  }
  return undefined;
}

/** Whether `target` may be called in `context` (for the tool list execute_code offers). */
export function reachable(context: CallContext, target: ToolRecord, exposure: Exposure, registry: Registry): boolean {
  return context.records.every((record) => mayCall(record.plugin, target, exposure, registry));
}
