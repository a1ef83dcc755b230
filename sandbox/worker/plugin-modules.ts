/**
 * The plugins a realm has imported: each imported once (after its pins are checked), its
 * plugin object, and the handlers that validate Standard Schema parameters.
 */
import { codedError } from '../../boundary/errors.js';
import { changedError, changedPin, type PinChange } from '../../boundary/pins.js';
import type { HandlerTask, ManifestTask } from '../../boundary/protocol.js';
import { findHandler, pluginObject, validatingHandlers } from './plugin-object.js';

type Handler = (...args: unknown[]) => unknown;

/** Each plugin entry's import, kept for the realm's life (a failed one fails every later task alike). */
export class PluginModules {
  private readonly modules = new Map<string, Promise<Record<string, unknown>>>();
  /** The plugins whose import finished, so a call to a loaded plugin need not await its import again. */
  private readonly loadedPlugins = new Map<string, Record<string, unknown>>();
  /**
   * By plugin, the handlers of its tools whose parameters are Standard Schema objects, behind the
   * schema's own validation (plugin-object.ts); a plugin of JSON Schemas only has no entry.
   */
  private readonly validating = new Map<string, Map<string, Handler>>();

  /**
   * `verify` tells whether a plugin's pinned files changed since the host loaded it (thread tier);
   * `importer` imports an entry (a test's stand-in; the realm's own `import()` otherwise).
   */
  constructor(
    private readonly verify?: (entry: string) => PinChange | undefined,
    private readonly importer: (entry: string) => Promise<Record<string, unknown>> = (entry) => import(entry),
  ) {}

  /** The plugin object of `entry` once its import finished, else undefined. */
  loaded(entry: string): Record<string, unknown> | undefined {
    return this.loadedPlugins.get(entry);
  }

  /** The plugin object of `entry`: imported on the first call, once its pins (the task's, or `verify`'s) hold. */
  load(entry: string, pins?: ManifestTask['pins']): Promise<Record<string, unknown>> {
    let loaded = this.modules.get(entry);
    if (!loaded) {
      // Checked once, before the first import in this worker: calls after it are not slowed. What
      // remains is the moment between this check and the import reading the files; the protected
      // paths keep the model's tools from writing them at all, this is the second line.
      const change = pins ? changedPin(pins) : this.verify?.(entry);
      // Kept like a failed import: every later task of the plugin in this worker fails the same way.
      loaded = change ? Promise.reject(changedError(change)) : this.imported(entry);
      this.modules.set(entry, loaded);
    }
    return loaded;
  }

  /** The handler a task calls: behind its Standard Schema's validation when its parameters are one. */
  handlerOf(task: HandlerTask, plugin: Record<string, unknown>): Handler {
    return this.validating.get(task.entry)?.get(task.tool) ?? findHandler(plugin, task.tool);
  }

  private imported(entry: string): Promise<Record<string, unknown>> {
    return this.importer(entry).then(
      (mod: Record<string, unknown>) => {
        try {
          const plugin = pluginObject(mod);
          const handlers = validatingHandlers(plugin);
          if (handlers) this.validating.set(entry, handlers);
          this.loadedPlugins.set(entry, plugin);
          return plugin;
        } catch (error) {
          throw codedError('PLUGIN_INVALID', (error as Error).message, { cause: error });
        }
      },
      (error: unknown) => {
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        throw codedError('PLUGIN_IMPORT_FAILED', `importing the plugin failed: ${message}`, { cause: error });
      },
    );
  }
}
