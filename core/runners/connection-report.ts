/**
 * What `explain` says about one MCP server: its connection state and why it
 * is not connected, what it runs, and the protections it was started under.
 * Types only, so the report can be read without loading the MCP SDK.
 */
import type { ResourceProtections } from '../../boundary/launch/resources.js';
import type { LogLevel } from '../../boundary/server-requests.js';

/** Where an MCP server's connection stands. */
export type ConnectionState =
  | 'not started'
  | 'connecting'
  | 'connected'
  | 'exited'
  | 'handshake failed'
  | 'timed out'
  | 'unreachable'
  | 'needs authorization'
  | 'closed';

/** The OS-level protections a stdio MCP server was started under. */
export interface ServerProtections {
  /** how the program was wrapped: bubblewrap, util-linux unshare, or not at all */
  launcher: 'bwrap' | 'unshare' | 'none';
  /** it sees only the paths it may read (bwrap) */
  mountNamespace: boolean;
  /** no network but its own loopback (false when network is granted, or unavailable) */
  netNamespace: boolean;
  /** it sees only its own processes */
  pidNamespace: boolean;
  /** it holds no capabilities outside its own user namespace */
  userNamespace: boolean;
  /** Node's permission model (fs limited to grants, no child processes, no workers, no addons): node servers only */
  permissionModel: boolean;
  /**
   * Node's permission model refuses it the network too (node servers on Node 25+, no `--allow-net`): false when network
   * is granted
   */
  netPermission: boolean;
  /**
   * which environment it got: only `env` plus granted names (untrusted), or a desktop client's default set (trusted)
   */
  env: 'granted only' | 'desktop default';
  /** why a protection is not in force, in words for the operator */
  reason?: string;
  /** its limits on processes, memory and file size, and what holds each (untrusted stdio servers) */
  resources?: ResourceProtections;
}

/**
 * A tool whose listed definition differs from the one pinned when it was first seen or last accepted
 * (definition-pins.ts).
 */
export interface DefinitionChange {
  /** the server's name in the config */
  server: string;
  /** the tool's name on the server */
  tool: string;
  /** the name the host exposes it by */
  name: string;
  /**
   * changed: its definition differs from the one accepted; added: no listing accepted before had a tool of this name
   */
  kind: 'changed' | 'added';
  /** hold: hidden until accepted; warn: served as changed (or new), with a warning */
  mode: 'hold' | 'warn';
  /** when the pinned definition was accepted (added: when the server's tools were last accepted) */
  acceptedAt: string;
  /**
   * the pinned definition against the listed one (added: all of it as `+` lines): `- old`, `+ new` lines with some
   * context, control characters escaped
   */
  diff: string[];
}

/** One MCP server's line in the report. */
export interface ConnectionReport {
  transport: 'stdio' | 'http';
  state: ConnectionState;
  /** why its tools are hidden, when it is not connected */
  reason?: string;
  /** the command line it was started with (stdio) or its URL (http) */
  target: string;
  /** stdio: what runs instead of the command as written (`npx` of an installed package is its bin under this node) */
  runs?: string;
  /** `serverInfo` from its handshake */
  server?: { name: string; version: string };
  /** stdio: the pid of the process toolshed started (the launcher's, when one wraps the server) */
  pid?: number;
  /** restarts (stdio) or reconnects (http) since the host started */
  restarts: number;
  /** the tools it listed, by exposed name → its own name where they differ */
  renamed: Record<string, string>;
  /** stdio only */
  protections?: ServerProtections;
  /** the last lines it wrote to stderr (stdio), for diagnosing a failed start */
  stderr?: string;
  /** tools it listed that toolshed could not take (bad name, schema that does not compile) */
  warnings: string[];
  /**
   * tools whose definition changed since it was accepted (held or served with a warning, as `definitionChanges` says)
   */
  definitionChanges?: DefinitionChange[];
  /** the MCP revision the connection speaks: `2026-07-28`, or the 2025 one its `initialize` settled on */
  protocolVersion?: string;
  /** what toolshed offered it as a client: `elicitation`, `roots`, `sampling` */
  offered?: string[];
  /**
   * whose credentials its calls carry when they are each caller's own (absent: the operator's), and
   * for an exchange where the caller's token is sent and what named that place (the config or the
   * operator's issuer; never the server)
   */
  credentials?: string;
  /** where toolshed's OAuth login to it stands (HTTP servers without a static Authorization header); never a token */
  auth?: ServerAuth;
  /**
   * its last log messages (`notifications/message`), oldest first, and its last requests to toolshed (elicitation,
   * sampling) with how they were answered
   */
  logs?: ServerLogEntry[];
}

/** toolshed's OAuth login to a remote MCP server, as explain shows it (`toolshed auth NAME --status`). */
export interface ServerAuth {
  /** tokens are kept (`authorized`), or a login is needed */
  state: 'authorized' | 'needs authorization';
  /** ISO time the access token expires; it is refreshed before a call after that, when `refreshable` */
  expiresAt?: string;
  /** the scopes granted */
  scopes?: string[];
  /** whether a refresh token is kept */
  refreshable?: boolean;
}

/** One log message of an MCP server, or a note of a request it made, as explain keeps it. */
export interface ServerLogEntry {
  level: LogLevel;
  /** the logger the server named */
  logger?: string;
  message: string;
  /** ISO time it arrived */
  at: string;
}
