/**
 * Step 4 of `createToolHost`: the config's MCP servers, started while plugins
 * load. The MCP SDK is loaded only for a config that has some.
 */
import type { HostSettings } from './open-config.js';
import type { McpServers } from '../mcp-client/index.js';
import type { DefinitionChange } from '../runners/connection-report.js';
import type { LoadedPlugin, PluginLoadResult } from '../load/types.js';
import type { ProtectedPath } from '../../boundary/plugin-api.js';
import type { HostEvents } from './events.js';
import type { Elicitor, Sampler } from '../../boundary/server-requests.js';

/** What the servers report to the host while it runs. */
interface ServerSignals {
  /** a server's stderr line or a connection note */
  log(entry: HostEvents['log'][0]): void;
  /** a tool's definition changed since it was accepted */
  definitionChanged(change: DefinitionChange): void;
  /** the embedder's answerers of servers' elicitation and sampling requests */
  onElicitation?: Elicitor;
  onSampling?: Sampler;
}

/** The host's MCP servers, started. */
export interface HostServers {
  servers: McpServers;
  /** settles when every server's first attempt did (connected, or failed with a restart scheduled) */
  started: Promise<void>;
  /** the servers as loaded plugins, named against `plugins`' tools */
  plugins(plugins: readonly PluginLoadResult[]): LoadedPlugin[];
  /** calls `listener` when a server connected, went away or re-listed (the registry must be rebuilt) */
  onChange(listener: () => void): void;
  /** stops every server */
  close(): Promise<void>;
}

/**
 * Starts `settings.config`'s MCP servers; undefined when it has none. Throws CONFIG_INVALID for an entry that cannot
 * work.
 */
export async function startServers(
  settings: HostSettings,
  protect: readonly ProtectedPath[],
  signals: ServerSignals,
): Promise<HostServers | undefined> {
  const { config, env } = settings;
  if (!Object.keys(config.mcpServers).length) return undefined;
  const { McpServers } = await import('../mcp-client/index.js');
  const listeners: Array<() => void> = [];
  const servers = new McpServers({
    config,
    env,
    protect,
    clock: settings.clock,
    onChange: () => listeners.forEach((listener) => listener()),
    // A server's line has no level of its own yet: 'info', unless its entry carries one.
    onLog: (entry) => signals.log({ level: 'info', ...entry }),
    onDefinitionChanged: signals.definitionChanged,
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    ...(signals.onElicitation ? { onElicitation: signals.onElicitation } : {}),
    ...(signals.onSampling ? { onSampling: signals.onSampling } : {}),
  });
  return {
    servers,
    started: servers.start(),
    plugins: (plugins) => servers.plugins(plugins),
    onChange: (listener) => void listeners.push(listener),
    close: async () => void (await Promise.all(servers.runners().map((runner) => runner.close()))),
  };
}
