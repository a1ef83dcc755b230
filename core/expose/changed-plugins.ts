/**
 * The trusted plugins whose pinned code changed after the host loaded them (a worker
 * refused it with PLUGIN_CHANGED, see boundary/pins.ts): their tools are hidden with the
 * reason until the host restarts. A change in toolshed's own runtime hides every plugin
 * of the thread tier, since every new worker there refuses its tasks.
 */
import { changedReason, type PinChange } from '../../boundary/pins.js';
import type { ToolRecord } from '../load/types.js';

/** Which plugins are out of service for changed code, and why. */
export class ChangedPlugins {
  private readonly plugins = new Map<string, string>();
  private runtime: string | undefined;

  /** Whether any plugin is withdrawn: with none, no tool needs asking. */
  get any(): boolean {
    return this.runtime !== undefined || this.plugins.size > 0;
  }

  /** Records a change reported for `plugin`; true when it is news (the exposure must be recomputed). */
  record(plugin: string, change: PinChange): boolean {
    if (change.runtime) {
      if (this.runtime !== undefined) return false;
      this.runtime = changedReason(change);
      return true;
    }
    if (this.plugins.has(plugin)) return false;
    this.plugins.set(plugin, changedReason(change));
    return true;
  }

  /** Why `record`'s plugin is withdrawn, if it is. */
  reasonFor(record: ToolRecord): string | undefined {
    const { plugin } = record;
    return (
      this.plugins.get(plugin.source.name) ??
      (this.runtime !== undefined && plugin.runner.tier === 'thread' ? this.runtime : undefined)
    );
  }
}
