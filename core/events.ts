/** The host's typed events. */
import { EventEmitter } from 'node:events';

/** Event names and their listener arguments. */
export interface HostEvents {
  /** the registry or the exposed set changed; the new generation */
  change: [generation: number];
  /** a cross-reference guard finding or another non-fatal problem */
  warning: [message: string];
  /** a handler's or check's `ctx.log` line */
  log: [entry: { tool?: string; plugin: string; message: string }];
  /** a tool_search loaded new tools into a session (sessionId undefined = the default session) */
  loaded: [entry: { sessionId: string | undefined; tools: string[] }];
}

/** An EventEmitter typed by `HostEvents`. */
export class HostEmitter extends EventEmitter<HostEvents> {}
