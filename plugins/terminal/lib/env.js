// @ts-check
import path from 'node:path';

/** The PATH a command gets when the operator granted none: the usual system directories. */
export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The child's environment: exactly the granted variables (never the host's own
 * environment), plus a PATH. When PATH was not granted, the default system PATH is
 * used with the directory of the running Node binary in front, so `node`, `npm`
 * and `npx` resolve to the same installation as the host even under nvm or similar.
 * @param {Record<string, string | undefined>} granted
 * @returns {Record<string, string>}
 */
export function childEnv(granted) {
  /** @type {Record<string, string>} */
  const env = {};
  for (const [key, value] of Object.entries(granted ?? {})) if (typeof value === 'string') env[key] = value;
  if (!env.PATH) {
    const dirs = [path.dirname(process.execPath), ...DEFAULT_PATH.split(':')];
    env.PATH = [...new Set(dirs)].join(':');
  }
  return env;
}
