/**
 * The tool registry: winners of every tool name, the conflicts, and a
 * generation counter that moves only when the plugin set is replaced (at load,
 * and when an MCP server connects, goes or re-lists). Read only otherwise:
 * each definitions pipeline keeps its own memo and generation, and checks the
 * registry's generation to know when its plugin set was replaced.
 */
import { foldName } from '../text/tool-names.js';
import type { LoadedPlugin, PluginLoadResult, ToolConflict, ToolRecord } from '../load/types.js';

/** Tools by name, with conflicts (names equal once folded, see tool-names.ts) resolved by config order or `prefer`. */
export class Registry {
  private generationValue = 0;
  private pluginList: PluginLoadResult[] = [];
  private readonly toolMap = new Map<string, ToolRecord>();
  private conflictList: ToolConflict[] = [];
  private loserList: ToolRecord[] = [];
  private names: ReadonlySet<string> | undefined;

  /** Bumped each time the plugin set is replaced (setPlugins), and by nothing else. */
  get generation(): number {
    return this.generationValue;
  }

  /** Every plugin, loaded or failed, in config order. */
  get plugins(): readonly PluginLoadResult[] {
    return this.pluginList;
  }

  /** The plugins that loaded. */
  loaded(): LoadedPlugin[] {
    return this.pluginList.filter((p): p is LoadedPlugin => p.status === 'loaded');
  }

  /** The winning record of every tool name. */
  get tools(): ReadonlyMap<string, ToolRecord> {
    return this.toolMap;
  }

  /** Every tool name, as a set (built once per plugin set). */
  get toolNames(): ReadonlySet<string> {
    this.names ??= new Set(this.toolMap.keys());
    return this.names;
  }

  /** Names defined by more than one plugin. */
  get conflicts(): readonly ToolConflict[] {
    return this.conflictList;
  }

  /** The definitions that lost a name conflict: not served, but their toolsets still exist. */
  get losers(): readonly ToolRecord[] {
    return this.loserList;
  }

  /** Replaces the plugin set; the first definition of a name wins unless `prefer` names another plugin. */
  setPlugins(plugins: PluginLoadResult[], prefer: Record<string, string>): void {
    this.pluginList = plugins;
    this.toolMap.clear();
    this.names = undefined;
    const owners = new Map<string, ToolRecord[]>();
    for (const plugin of plugins) {
      if (plugin.status !== 'loaded') continue;
      for (const manifest of plugin.manifest.tools) {
        // Names that differ only in case (or in invisible characters) are one name to a reader: they conflict.
        const key = foldName(manifest.name);
        const list = owners.get(key) ?? [];
        list.push({ name: manifest.name, plugin, manifest });
        owners.set(key, list);
      }
    }
    this.conflictList = [];
    this.loserList = [];
    for (const list of owners.values()) {
      const preferred = list.map((r) => prefer[r.name]).find((p) => p !== undefined);
      const chosen =
        (preferred !== undefined &&
          list.find((r) => r.plugin.source.name === preferred || r.plugin.source.specifier === preferred)) ||
        list[0]!;
      this.toolMap.set(chosen.name, chosen);
      if (list.length > 1) {
        const losers = list.filter((r) => r !== chosen);
        this.loserList.push(...losers);
        const spellings = [...new Set(losers.map((r) => r.name).filter((n) => n !== chosen.name))];
        this.conflictList.push({
          name: chosen.name,
          winner: chosen.plugin.source.name,
          losers: losers.map((r) => r.plugin.source.name),
          rule: chosen === list[0] ? 'config order' : 'prefer',
          ...(spellings.length ? { spellings } : {}),
        });
      }
    }
    this.generationValue++;
  }
}
