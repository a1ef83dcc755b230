/**
 * Hooks named in config (`hooks: ['./audit-hooks.mjs']`): each module is
 * imported on the host thread, like the config file itself, and its default
 * export (one `{ beforeCall, afterCall }` object or an array of them) is added
 * to the host with `use()`. A module that cannot be imported or exports
 * something else is CONFIG_INVALID, naming the module and the config file.
 */
import { ConfigError } from '../../boundary/errors.js';
import { moduleUrl } from '../load/module-url.js';
import type { ToolHooks } from './hooks.js';
import type { ResolvedConfig } from '../config/config.js';

function isHooks(value: unknown): value is ToolHooks {
  if (typeof value !== 'object' || value === null) return false;
  const { beforeCall, afterCall } = value as ToolHooks;
  return (
    (beforeCall !== undefined || afterCall !== undefined) &&
    (beforeCall === undefined || typeof beforeCall === 'function') &&
    (afterCall === undefined || typeof afterCall === 'function')
  );
}

/** Imports every module in `config.hooks`, in order; each hook is named after its module unless it names itself. */
export async function loadHookModules(config: ResolvedConfig): Promise<ToolHooks[]> {
  const out: ToolHooks[] = [];
  for (const [index, specifier] of config.hooks.entries()) {
    const where = { ...(config.file ? { file: config.file } : {}), pointer: `/hooks/${index}` };
    let mod: { default?: unknown };
    try {
      mod = (await import(moduleUrl(specifier, config.dir))) as { default?: unknown };
    } catch (error) {
      throw new ConfigError(`hooks module '${specifier}' could not be loaded: ${(error as Error).message}`, where, {
        cause: error,
      });
    }
    const exported = Array.isArray(mod.default) ? mod.default : [mod.default];
    if (!exported.length || !exported.every(isHooks)) {
      throw new ConfigError(
        `hooks module '${specifier}' must export default { beforeCall?, afterCall? } (functions), or an array ` +
          `of such objects`,
        { ...where, expected: 'hooks object' },
      );
    }
    for (const hooks of exported) out.push(hooks.name ? hooks : { ...hooks, name: specifier });
  }
  return out;
}
