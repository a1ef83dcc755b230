/**
 * `createToolHost`: the host's start as a list of steps, each in its own file:
 * config (open-config.ts) → runners (open-runners.ts) → plugin entries and
 * MCP servers, started while plugins load (load-plugins.ts, start-servers.ts)
 * → the pipeline's inputs (open-pipeline.ts) → the root surface
 * (open-surface.ts). Each step adds what it opened to the teardown, which
 * `close()` runs in reverse.
 */
import { performance } from 'node:perf_hooks';
import { openConfig } from './open-config.js';
import { openRunners } from './open-runners.js';
import { loadEntries, resolveEntries } from './load-plugins.js';
import { startServers } from './start-servers.js';
import { openPipeline } from './open-pipeline.js';
import { openSurface } from './open-surface.js';
import { HostEmitter } from './events.js';
import { Teardown } from './teardown.js';
import { openStateStore } from '../state/store.js';
import { fleetStore } from '../state/signed-messages.js';
import { FleetBreaker } from '../call/fleet-breaker.js';
import { AuditLog } from '../call/audit.js';
import type { DefinitionChange } from '../runners/connection-report.js';
import type { ToolHostOptions } from './tool-host.js';
import type { ToolHost } from './tool-host.js';

export type { DefinitionsOptions, ToolHost, ToolHostOptions, ViewOptions } from './tool-host.js';

/** The notice for a changed MCP tool definition while the host starts (explain has it too). */
function changedDefinitionNotice(change: DefinitionChange): string {
  const how = change.mode === 'hold' ? 'held' : 'served with a warning';
  if (change.kind === 'added')
    return (
      `the MCP server ${change.server} lists ${change.name}, a tool new since its tools were accepted (${how}); ` +
      `toolshed accept ${change.server} shows it`
    );
  return (
    `the MCP server ${change.server} changed the definition of ${change.name} since it was accepted (${how}); ` +
    `toolshed accept ${change.server} shows the difference`
  );
}

/**
 * Creates a host: loads config and plugins and evaluates which tools are exposed.
 * Throws a ToolshedError (CONFIG_INVALID, CONFIG_UNTRUSTED, TOOLSET_UNKNOWN, TOOLSET_CYCLE) for a host-level problem;
 * a plugin that fails to load is reported in explain() instead.
 * @example
 * const host = await createToolHost({ cwd: process.cwd() });
 * const tools = await host.definitions({ format: 'openai' });
 * const result = await host.dispatch('read_file', '{"path":"README.md"}');
 * await host.close();
 */
export async function createToolHost(options: ToolHostOptions = {}): Promise<ToolHost> {
  const started = performance.now();
  const settings = await openConfig(options);
  // The root surface's events: checks' and servers' logs go here from the start.
  const events = new HostEmitter();
  let up = false;
  const teardown = new Teardown();
  try {
    // Opened first, so it closes last: the lines of calls the teardown ends are written too.
    const audit = settings.config.audit
      ? teardown.add(
          await AuditLog.open(settings.config.audit, (message) => events.emit('warning', message), settings.clock),
        )
      : undefined;
    // A store the embedder passed is its own to close; one the config names is the host's.
    // A store the replicas of a fleet share carries only messages signed with the fleet's key.
    const state = fleetStore(
      options.stateStore ?? teardown.add(await openStateStore({ ...settings.config.state, clock: settings.clock })),
      settings.env,
      settings.clock,
      (message) => events.emit('warning', message),
    );
    const runners = teardown.add(openRunners(settings.config));
    const entries = resolveEntries(settings.config);
    const servers = await startServers(settings, entries.protect, {
      log: (entry) => events.emit('log', entry),
      // Once the host is up, the 'definition-changed' event; before, a notice.
      definitionChanged: (change) =>
        up ? events.emit('definition-changed', change) : settings.notice(changedDefinitionNotice(change)),
      ...(options.onElicitation ? { onElicitation: options.onElicitation } : {}),
      ...(options.onSampling ? { onSampling: options.onSampling } : {}),
    });
    if (servers) teardown.add(servers);
    const loaded = await loadEntries(settings, entries, runners);
    if (options.waitForServers !== false) await servers?.started;
    const pipeline = openPipeline({
      settings,
      plugins: loaded.plugins,
      runners,
      servers,
      rewriters: options.rewriters,
      log: (entry) => events.emit('log', entry),
    });
    // Breaker counts the fleet shares: failures counted in the store, circuits opened on every replica.
    if (settings.config.limits.breaker.shared)
      await pipeline.breaker?.share(teardown.add(new FleetBreaker(state, settings.config.limits.breaker)));
    const host = await openSurface({
      settings,
      state,
      entries,
      runners,
      loaded,
      servers,
      pipeline,
      events,
      audit,
      onApproval: options.onApproval,
      started,
      teardown: () => teardown.close(),
    });
    up = true;
    return host;
  } catch (error) {
    await teardown.close();
    throw error;
  }
}
