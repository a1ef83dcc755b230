/**
 * Step 1 of `createToolHost`: the config in force, trusted by content
 * (config-trust.ts), and the config's hooks modules, loaded before any pool
 * starts so a bad one fails the host with nothing to tear down.
 */
import path from 'node:path';
import { loadHostConfig } from '../config/host-config.js';
import { resolveEmbedder, stripUndefined, validateConfigObject } from '../config/config.js';
import { loadHookModules } from '../call/hook-modules.js';
import type { Embedder, ResolvedConfig } from '../config/config.js';
import type { Clock } from '../expose/check-cache.js';
import { systemClock } from '../state/clock.js';
import type { ToolHooks } from '../call/hooks.js';
import type { ToolHostOptions } from './tool-host.js';
import type { CredentialProvider } from '../call/public-types.js';

/** What every later step reads: the config, the environment grants come from, the clock. */
export interface HostSettings {
  config: ResolvedConfig;
  /** the environment checks see and grants come from */
  env: Record<string, string | undefined>;
  clock: Clock;
  /** the config's `hooks` modules, added to the host with `use()` */
  hooks: ToolHooks[];
  /** a one-line note for the person starting the host */
  notice(message: string): void;
  /** the embedder's per-identity credentials (tools' secrets, tokens for servers used on the caller's behalf) */
  credentials?: CredentialProvider;
}

/**
 * `config` with the embedder passed to createToolHost, which comes before the config's. Its four
 * settings are checked as the config's would be; other properties (an embedder object's own state) are its own.
 */
function withEmbedder(config: ResolvedConfig, embedder: Embedder | undefined): ResolvedConfig {
  if (embedder === undefined) return config;
  const { model, embed, batchSize, timeoutMs } = embedder;
  validateConfigObject({ search: { embedder: stripUndefined({ model, embed, batchSize, timeoutMs }) } }, undefined);
  return { ...config, search: { ...config.search, embedder: resolveEmbedder(embedder) } };
}

/** Loads the config from the options; throws CONFIG_INVALID or CONFIG_UNTRUSTED. */
export async function openConfig(options: ToolHostOptions): Promise<HostSettings> {
  const cwd = path.resolve(options.cwd ?? options.root ?? process.cwd());
  const notice = (message: string) => options.onNotice?.(message);
  const trust = options.trustConfig === true || process.env.TOOLSHED_TRUST_CONFIG === '1' ? 'accept' : 'check';
  const loaded = await loadHostConfig({ ...options, trust }, cwd);
  const { trust: trusted } = loaded;
  const config = withEmbedder(loaded.config, options.search?.embedder);
  if (trusted?.note) notice(trusted.note);
  // Accepted without a review (--trust-config): say what, so a log shows it.
  else if (trusted?.changes.length) notice(`accepted a changed config (trustConfig): ${trusted.changes.join('; ')}`);
  return {
    config,
    env: options.env ?? process.env,
    clock: options.clock ?? systemClock,
    hooks: await loadHookModules(config),
    notice,
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
}
