/**
 * The config a host starts with: an embedder's object, or a file found or named,
 * loaded under config trust (config-trust.ts) and filled with defaults.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { userStateDir } from '../state/user-dirs.js';
import {
  loadConfig,
  resolveConfig,
  stripUndefined,
  validateConfigObject,
  type ResolvedConfig,
  type ToolshedConfig,
} from './config.js';
import {
  currentState,
  decideTrust,
  knownWritableRoot,
  preImportGuard,
  readTrustRecord,
  rememberWritableRoots,
  type TrustMode,
  type TrustOutcome,
} from './config-trust.js';
import { realPath, realRoots } from './config-fingerprint.js';
import { insideAny, writableRoots } from './writable-roots.js';

/** What `loadHostConfig` needs of the host's options. */
export interface HostConfigOptions {
  root?: string;
  config?: ToolshedConfig | string;
  overrides?: Partial<Pick<ToolshedConfig, 'enable' | 'disable'>>;
  /** `accept` records a changed config instead of refusing it */
  trust: TrustMode;
}

/** The resolved config, and what config trust decided (undefined for a config object). */
export interface HostConfig {
  config: ResolvedConfig;
  trust?: TrustOutcome;
}

/**
 * Loads and resolves the config from `cwd`; throws CONFIG_INVALID, or CONFIG_UNTRUSTED before anything of a changed
 * config runs.
 */
export async function loadHostConfig(options: HostConfigOptions, cwd: string): Promise<HostConfig> {
  const cores = os.availableParallelism();
  const root = { ...(options.root !== undefined ? { explicit: path.resolve(cwd, options.root) } : {}), fallback: cwd };
  const overridden = (config: ToolshedConfig, file: string | undefined) =>
    options.overrides ? validateConfigObject({ ...config, ...stripUndefined(options.overrides) }, file) : config;
  // An embedder's object is its own code, not a file the model could have written.
  if (options.config !== undefined && typeof options.config !== 'string') {
    return {
      config: resolveConfig(
        overridden(validateConfigObject(options.config, undefined), undefined),
        undefined,
        cwd,
        cores,
        root,
      ),
    };
  }
  const named = typeof options.config === 'string' ? options.config : undefined;
  // The state folder is the user's (process.env), never the env a host hands its tools.
  const stateDir = userStateDir(process.env);
  const context = {
    key: realPath(named !== undefined ? path.resolve(cwd, named) : cwd),
    named: named !== undefined,
    mode: options.trust,
    stateDir,
    cwd,
  };
  const record = stateDir ? readTrustRecord(stateDir, context.key) : undefined;
  // Before a JS config runs, the only writable root known is the explicit one, else the search folder.
  const guard = preImportGuard(context, record, realRoots([root.explicit ?? cwd]));
  const loaded = await loadConfig({ cwd, ...(named !== undefined ? { file: named } : {}), onRead: guard });
  const config = resolveConfig(
    overridden(loaded.config, loaded.file),
    loaded.file,
    loaded.file ? path.dirname(loaded.file) : cwd,
    cores,
    root,
  );
  const writable = realRoots(writableRoots(config));
  // A config outside this start's writable roots but inside one an earlier start had (or a recorded workspace) is held
  // to trust all the same.
  const file = loaded.file !== undefined ? realPath(loaded.file) : undefined;
  const known =
    stateDir && file !== undefined && !insideAny(file, writable) ? knownWritableRoot(stateDir, file) : undefined;
  const roots = known !== undefined ? [...writable, known] : writable;
  const trust = decideTrust(
    context,
    record,
    currentState(loaded, config, roots, (file) => readFileSync(file, 'utf8'), Object.keys(record?.modules ?? {})),
    roots,
  );
  // Known from now on: a config that appears in one of these folders later is not trusted on first use.
  if (stateDir) rememberWritableRoots(stateDir, writable);
  return { config, trust };
}
