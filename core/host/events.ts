/** The host's typed events. */
import { EventEmitter } from 'node:events';
import type { DefinitionChange } from '../runners/connection-report.js';
import type { LogLevel } from '../../boundary/plugin-api.js';
import type { CallRecord } from '../call/public-types.js';

/** Event names and their listener arguments. */
export interface HostEvents {
  /** the registry or the exposed set changed; the new generation */
  change: [generation: number];
  /** a cross-reference guard finding or another non-fatal problem */
  warning: [message: string];
  /**
   * a handler's or check's `ctx.log` line, or an MCP server's stderr line or log message, at its level ('info' unless
   * it said otherwise) and with an MCP server's logger
   */
  log: [entry: { tool?: string; plugin: string; message: string; level: LogLevel; logger?: string }];
  /** a tool_search loaded new tools into a session (sessionId undefined = the default session) */
  loaded: [entry: { sessionId: string | undefined; tools: string[] }];
  /**
   * a call ended (every call through the host and its views, nested and refused ones too; on the host, not its views)
   */
  call: [record: CallRecord];
  /**
   * an MCP server's tool definition changed since it was accepted: held or served with a warning, with the diff (once
   * per new definition; on the host, not its views)
   */
  'definition-changed': [change: DefinitionChange];
}

/**
 * An EventEmitter typed by `HostEvents`. Every MCP session, view, console and live adapter
 * follows 'change' with a listener of its own, removed when it closes: a busy server has
 * hundreds, which is use, not a leak, so Node's warning past 10 is off.
 */
export class HostEmitter extends EventEmitter<HostEvents> {
  constructor() {
    super();
    this.setMaxListeners(0);
  }
}
