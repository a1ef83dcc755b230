/**
 * What the host does with MCP tool definitions that changed since they were accepted, and with
 * tools new since then (definition-pins.ts keeps the pins): per server, after each rebuild of its tools, which
 * tools are held (hidden through availability's out-of-service path) and why, which are
 * served with a warning, which changes are news (the `definition-changed` event), and
 * accepting them by the server's own or the exposed tool names.
 */
import { UsageError } from '../../boundary/errors.js';
import { userStateDir } from '../state/user-dirs.js';
import { shownName } from '../text/tool-names.js';
import { ADDED_REASON, DefinitionPins, HELD_REASON, pinFile } from './definition-pins.js';
import type { ResolvedConfig } from '../config/config.js';
import type { ResolvedServer } from './config.js';
import type { DefinitionChange } from '../runners/connection-report.js';
import type { ServerTool, UpstreamTool } from './tools.js';

interface ServerState {
  server: ResolvedServer;
  pins: DefinitionPins;
  /** the tools as last built: the server's own name → the exposed one */
  names: Map<string, string>;
  /** held tools: exposed name → why */
  held: Map<string, string>;
}

/** Every configured server's pins, and what they hold. */
export class HeldDefinitions {
  private readonly servers = new Map<string, ServerState>();

  /** Pins live in the user's state folder (the user's env, never the host's), a file per config and server. */
  constructor(
    config: ResolvedConfig,
    servers: readonly ResolvedServer[],
    private readonly onChanged?: (change: DefinitionChange) => void,
  ) {
    const key = config.file ?? config.dir;
    const stateDir = userStateDir(process.env);
    for (const server of servers) {
      const pins = new DefinitionPins(
        server.name,
        server.definitionChanges,
        key,
        stateDir ? pinFile(stateDir, key, server.name) : undefined,
      );
      this.servers.set(server.pluginName, { server, pins, names: new Map(), held: new Map() });
    }
  }

  /**
   * Compares a server's latest listing with its pins, after its tools were built: holds
   * changed tools or adds a warning for each (as its `definitionChanges` says), and reports
   * the changes not reported before.
   */
  review(
    server: ResolvedServer,
    listed: readonly UpstreamTool[],
    tools: readonly ServerTool[],
    warnings: string[],
  ): void {
    const state = this.servers.get(server.pluginName)!;
    state.names = new Map(tools.map((t) => [t.upstream, t.manifest.name]));
    const fresh = new Set(state.pins.review(listed).map((change) => change.tool));
    state.held = new Map();
    for (const change of this.changes(state)) {
      const accept = `toolshed accept ${server.name} ${shownName(change.tool)}`;
      const added = change.kind === 'added';
      if (change.mode === 'hold')
        state.held.set(
          change.name,
          added
            ? `${ADDED_REASON} (${accept} shows it and accepts it)`
            : `${HELD_REASON} (${accept} shows the difference and accepts it)`,
        );
      else if (added)
        warnings.push(
          `tool ${change.name}: new since its server's tools were accepted on ${change.acceptedAt}; served ` +
            `(definitionChanges: warn) until ${accept}`,
        );
      else
        warnings.push(
          `tool ${change.name}: its definition changed since it was accepted on ${change.acceptedAt}; served ` +
            `as changed (definitionChanges: warn) until ${accept}`,
        );
      if (fresh.has(change.tool)) this.onChanged?.(change);
    }
    if (state.pins.problem) warnings.push(state.pins.problem);
  }

  /** A server's changed tools, for explain; undefined when none. */
  changesOf(server: ResolvedServer): DefinitionChange[] | undefined {
    const state = this.servers.get(server.pluginName)!;
    return state.pins.changes.length ? this.changes(state) : undefined;
  }

  private changes(state: ServerState): DefinitionChange[] {
    return state.pins.changes.map((change) => ({
      ...change,
      name: state.names.get(change.tool) ?? shownName(change.tool),
    }));
  }

  /** Whether any tool is held: with none, no tool needs asking. */
  get anyHeld(): boolean {
    for (const state of this.servers.values()) if (state.held.size) return true;
    return false;
  }

  /** Why a tool is held, by its plugin's name (`mcp:<server>`) and its exposed name, if it is. */
  heldReason(plugin: string, tool: string): string | undefined {
    return this.servers.get(plugin)?.held.get(tool);
  }

  /**
   * Accepts changed definitions: of the tools named (by their exposed or their own names) of
   * `server`, of all its changed tools, or of every server's when `server` is omitted. The
   * caller rebuilds the plugins after. Throws USAGE for a server or tool that is not there.
   */
  accept(request: { server?: string; tools?: readonly string[] }): DefinitionChange[] {
    const all = [...this.servers.values()];
    const states = request.server === undefined ? all : all.filter((s) => s.server.name === request.server);
    if (!states.length)
      throw new UsageError(
        `no MCP server named '${request.server}' in the config (it has ${all.map((s) => s.server.name).join(', ')})`,
      );
    if (request.tools?.length && request.server === undefined)
      throw new UsageError('name the server whose tools to accept');
    const accepted: DefinitionChange[] = [];
    for (const state of states) {
      const before = this.changes(state);
      const byExposed = new Map([...state.names].map(([own, exposed]) => [exposed, own]));
      const own = request.tools?.length ? request.tools.map((name) => byExposed.get(name) ?? name) : undefined;
      const missing = own?.filter((name) => !state.pins.lists(name));
      if (missing?.length)
        throw new UsageError(
          `the MCP server ${state.server.name} does not list ${missing.map((m) => `'${shownName(m)}'`).join(', ')}`,
        );
      const done = new Set(state.pins.accept(own).map((change) => change.tool));
      accepted.push(...before.filter((change) => done.has(change.tool)));
    }
    return accepted;
  }
}
