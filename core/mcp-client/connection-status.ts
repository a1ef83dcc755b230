/**
 * Where an MCP server's connection stands, and why, as explain reports it: its state, the
 * reason its tools are hidden, the restarts so far and what its handshake said.
 */
import type { ConnectionState } from '../runners/connection-report.js';

/** One connection's state and reason, its restarts and what its last handshake told. */
export class ConnectionStatus {
  state: ConnectionState;
  reason: string | undefined;
  /** restarts (stdio) or reconnects (http) since the host started */
  restarts = 0;
  /** `serverInfo` from its last handshake */
  serverInfo: { name: string; version: string } | undefined;
  /** the MCP revision its last handshake settled on */
  protocolVersion: string | undefined;

  /** `notStarted`: why the server is not started at all (the config says so). */
  constructor(
    private readonly server: string,
    notStarted: string | undefined,
  ) {
    this.state = notStarted ? 'not started' : 'connecting';
    this.reason = notStarted ?? `the MCP server ${server} is starting`;
  }

  set(state: ConnectionState, reason?: string): void {
    this.state = state;
    this.reason = reason;
  }

  /** Another attempt begins: one more restart, `connecting`, and why. */
  retrying(why: string): void {
    this.restarts++;
    this.state = 'connecting';
    this.reason = `the MCP server ${this.server} is ${why}`;
  }

  /** What a handshake told of the server: its name and version, and the revision agreed. */
  handshake(info: { name: string; version: string } | undefined, protocolVersion: string | undefined): void {
    if (info) this.serverInfo = { name: info.name, version: info.version };
    this.protocolVersion = protocolVersion;
  }

  /** Why the server's tools are hidden (undefined while connected). */
  why(): string | undefined {
    return this.state === 'connected' ? undefined : this.reason;
  }
}
