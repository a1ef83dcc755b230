/**
 * Layer 1, toolset selection. Toolsets come from plugins (declared, and
 * implied by each tool's `toolset`) and from config; `includes` compose
 * recursively with diamonds counted once. `enable` selects, `disable`
 * subtracts toolsets or single tools, last.
 */
import { ConfigError, ToolsetError } from '../../boundary/errors.js';
import { didYouMean } from '../text/suggest.js';
import type { Registry } from './registry.js';
import type { ResolvedConfig } from '../config/config.js';
import type { FailedPlugin } from '../load/types.js';

/** One toolset after merging every definition of its name. */
export interface Toolset {
  name: string;
  description?: string;
  includes: string[];
  /** tools that belong to it directly */
  tools: string[];
  /** plugin names or 'config' */
  definedBy: string[];
  /** plugins that declare it but failed to load: the toolset is known, their part of it unavailable */
  unavailable: Array<{ plugin: string; code: string; message: string }>;
  /** its tools that lost a name conflict to another plugin's tool */
  lost: Array<{ tool: string; plugin: string; winner: string }>;
}

const ALL = new Set(['all', '*']);

/** Merges toolsets from the registry's plugins and from config. */
export function collectToolsets(
  registry: Registry,
  configToolsets: Record<string, { description?: string; includes: string[]; tools: string[] }>,
): Map<string, Toolset> {
  const sets = new Map<string, Toolset>();
  const get = (name: string): Toolset => {
    let set = sets.get(name);
    if (!set) {
      set = { name, includes: [], tools: [], definedBy: [], unavailable: [], lost: [] };
      sets.set(name, set);
    }
    return set;
  };
  const addOwner = (set: Toolset, owner: string) => {
    if (!set.definedBy.includes(owner)) set.definedBy.push(owner);
  };
  for (const plugin of registry.loaded()) {
    for (const [name, spec] of Object.entries(plugin.manifest.toolsets)) {
      const set = get(name);
      set.description ??= spec.description;
      set.includes.push(...(spec.includes ?? []));
      set.tools.push(...(spec.tools ?? []));
      addOwner(set, plugin.source.name);
    }
  }
  // A tool that lost a name conflict is not the tool of that name, so only winners join toolsets;
  // a loser's toolset still exists (enabling it is not an error) and records what it lost.
  for (const record of registry.tools.values()) {
    const set = get(record.manifest.toolset);
    set.tools.push(record.name);
    addOwner(set, record.plugin.source.name);
  }
  for (const loser of registry.losers) {
    const set = get(loser.manifest.toolset);
    addOwner(set, loser.plugin.source.name);
    set.lost.push({
      tool: loser.name,
      plugin: loser.plugin.source.name,
      winner: registry.tools.get(loser.name)?.plugin.source.name ?? '?',
    });
  }
  // A failed plugin's toolsets stay known: config naming them keeps working, and explain says why they are empty.
  for (const plugin of registry.plugins) {
    if (plugin.status !== 'failed') continue;
    for (const name of plugin.known.toolsets) {
      const set = get(name);
      addOwner(set, plugin.name);
      set.unavailable.push({ plugin: plugin.name, code: plugin.error.code, message: plugin.error.message });
    }
  }
  for (const [name, spec] of Object.entries(configToolsets)) {
    const set = get(name);
    if (spec.description) set.description = spec.description;
    set.includes.push(...spec.includes);
    set.tools.push(...spec.tools);
    addOwner(set, 'config');
  }
  for (const set of sets.values()) {
    set.includes = [...new Set(set.includes)];
    set.tools = [...new Set(set.tools)];
  }
  return sets;
}

/** Expands toolsets to tool names; throws TOOLSET_CYCLE naming the path, TOOLSET_UNKNOWN with a did-you-mean. */
export class ToolsetResolver {
  private readonly memo = new Map<string, Set<string>>();

  /**
   * `guess`, when some failed plugin's toolsets are not known, turns an unknown name into a
   * warning (that plugin may declare it) instead of TOOLSET_UNKNOWN.
   */
  constructor(
    private readonly sets: Map<string, Toolset>,
    private readonly knownTools: ReadonlySet<string>,
    private readonly guess?: (name: string) => string | undefined,
  ) {}

  /** Warnings about names only a failed plugin might declare. */
  readonly warnings: string[] = [];

  /** Every tool in `name`, following includes. */
  expand(name: string, trail: string[] = []): Set<string> {
    const memo = this.memo.get(name);
    if (memo) return memo;
    if (trail.includes(name)) {
      const cycle = [...trail.slice(trail.indexOf(name)), name];
      throw new ToolsetError('TOOLSET_CYCLE', `toolsets include each other in a cycle: ${cycle.join(' → ')}`, {
        cycle,
      });
    }
    const set = this.sets.get(name);
    if (!set) {
      const warning = this.guess?.(name);
      if (!warning) throw this.unknown(name, trail);
      this.warnings.push(
        `toolset '${name}'${trail.length ? ` (included by ${trail[trail.length - 1]})` : ''}: ${warning}`,
      );
      const none = new Set<string>();
      this.memo.set(name, none);
      return none;
    }
    const tools = new Set<string>();
    for (const tool of set.tools) if (this.knownTools.has(tool)) tools.add(tool);
    for (const include of set.includes) for (const tool of this.expand(include, [...trail, name])) tools.add(tool);
    this.memo.set(name, tools);
    return tools;
  }

  private unknown(name: string, trail: string[]): ToolsetError {
    const from = trail.length ? ` (included by ${trail[trail.length - 1]})` : '';
    return new ToolsetError(
      'TOOLSET_UNKNOWN',
      `unknown toolset '${name}'${from}.${didYouMean(name, this.sets.keys())}`,
      { toolset: name, trail },
    );
  }

  /** Checks every toolset once so a cycle anywhere is reported even if nothing enables it. */
  validateAll(): void {
    for (const name of this.sets.keys()) this.expand(name);
  }

  /** Tools selected by `enable` minus `disable`, and why each other known tool is not selected. */
  select(
    enable: string[],
    disable: string[],
    onUnknownDisable?: (error: ToolsetError) => void,
  ): { selected: Set<string>; reasons: Map<string, string> } {
    const selected = new Set<string>();
    const wantsAll = enable.some((name) => ALL.has(name));
    const enableNames = wantsAll ? [...this.sets.keys()] : enable;
    for (const name of enableNames) {
      if (!this.sets.has(name)) {
        if (this.knownTools.has(name)) {
          throw new ToolsetError(
            'TOOLSET_UNKNOWN',
            `'${name}' in enable is a tool, not a toolset; enable a toolset that contains it, or list it in a ` +
              `config toolset's tools`,
            { toolset: name },
          );
        }
        if (!this.guess?.(name)) throw this.unknown(name, []);
      }
      for (const tool of this.expand(name)) selected.add(tool);
    }
    const reasons = new Map<string, string>();
    for (const tool of this.knownTools) {
      if (!selected.has(tool)) reasons.set(tool, `not in the enabled toolsets (${enable.join(', ') || 'none'})`);
    }
    for (const name of disable) {
      if (this.sets.has(name)) {
        for (const tool of this.expand(name)) {
          if (selected.delete(tool) || !reasons.has(tool)) reasons.set(tool, `toolset '${name}' is disabled`);
        }
      } else if (this.knownTools.has(name)) {
        selected.delete(name);
        reasons.set(name, 'disabled by config');
      } else {
        const error = new ToolsetError(
          'TOOLSET_UNKNOWN',
          `unknown toolset or tool '${name}' in disable.${didYouMean(name, [...this.sets.keys(), ...this.knownTools])}`,
          { toolset: name },
        );
        if (!onUnknownDisable) throw error;
        onUnknownDisable(error);
      }
    }
    return { selected, reasons };
  }
}

/**
 * Checks every `grant.callTools` entry of the config against the tools and
 * toolsets that exist, like `enable`: CONFIG_INVALID with a did-you-mean. Where
 * a plugin failed to load (it may have defined the name), a warning instead.
 */
function validateCallToolsGrants(
  registry: Registry,
  toolsets: Map<string, Toolset>,
  config: ResolvedConfig,
  warn: (message: string) => void,
): void {
  const known = [...registry.tools.keys(), ...toolsets.keys()];
  const knownSet = new Set(known);
  const lenient = registry.plugins.some((p) => p.status === 'failed');
  config.plugins.forEach((entry, i) => {
    if (typeof entry === 'string') return;
    (entry.grant?.callTools ?? []).forEach((name, j) => {
      if (knownSet.has(name)) return;
      const pointer = `/plugins/${i}/grant/callTools/${j}`;
      const message =
        `${config.file ?? 'config object'}: ${pointer}: unknown tool or toolset '${name}' in the callTools grant ` +
        `of ${entry.package}.${didYouMean(name, known)}`;
      if (lenient) return warn(`${message} (a plugin failed to load; it may have defined it)`);
      throw new ConfigError(message, {
        ...(config.file ? { file: config.file } : {}),
        pointer,
        expected: 'a tool or toolset name',
      });
    });
  });
}

/**
 * A name no known toolset has may still belong to a failed plugin whose toolsets are not
 * known (it never loaded here): then it is a warning naming those plugins, not TOOLSET_UNKNOWN.
 */
function guessFromFailures(registry: Registry): ((name: string) => string | undefined) | undefined {
  const unknownContents = registry.plugins.filter(
    (p): p is FailedPlugin => p.status === 'failed' && p.known.from === 'name',
  );
  if (!unknownContents.length) return undefined;
  const list = unknownContents.map((p) => `${p.name} (${p.error.code})`).join(', ');
  return () =>
    `no loaded plugin declares it; it may belong to ${list}, which failed to load and has no cached manifest ` +
    `that says what it declares`;
}

/** Warnings for enabled toolsets that lost tools to failed plugins or name conflicts. */
function unavailableWarnings(toolsets: Map<string, Toolset>, enable: string[]): string[] {
  const warnings: string[] = [];
  for (const name of enable) {
    const set = toolsets.get(name);
    if (!set) continue;
    for (const u of set.unavailable)
      warnings.push(
        `toolset '${name}' is enabled, but ${u.plugin} declares it and failed to load (${u.code}); its tools ` +
          `are unavailable`,
      );
    for (const l of set.lost)
      warnings.push(
        `toolset '${name}' is enabled, but its tool ${l.tool} from ${l.plugin} lost a name conflict to ` +
          `${l.winner} (TOOL_CONFLICT)`,
      );
  }
  return warnings;
}

/** Layer 1: selection, with the reasons for everything not selected. */
export function selectTools(
  registry: Registry,
  config: ResolvedConfig,
): { selected: Set<string>; reasons: Map<string, string>; toolsets: Map<string, Toolset>; warnings: string[] } {
  const toolsets = collectToolsets(registry, config.toolsets);
  const resolver = new ToolsetResolver(toolsets, new Set(registry.tools.keys()), guessFromFailures(registry));
  resolver.validateAll();
  const warnings: string[] = [];
  const failedPlugins = registry.plugins.some((p) => p.status === 'failed');
  // A name in `disable` may belong to a plugin that failed to load; that is reported there, not fatal here.
  const lenient = failedPlugins
    ? (error: ToolsetError) => warnings.push(`${error.message} (a plugin failed to load; it may have defined it)`)
    : undefined;
  const { selected, reasons } = resolver.select(config.enable, config.disable, lenient);
  validateCallToolsGrants(registry, toolsets, config, (message) => warnings.push(message));
  warnings.push(...resolver.warnings, ...unavailableWarnings(toolsets, config.enable));
  return { selected, reasons, toolsets, warnings };
}
