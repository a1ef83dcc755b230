/**
 * What every framework adapter shares: its options, the error a failed call
 * becomes, and the call itself. A tool failure reaches the framework as its
 * own failed-tool signal (a thrown `ToolshedToolError`, or an error result),
 * and the text the model reads is the envelope `{"error","code"}` either way.
 */
import { envelope, type CallOutcome } from '../../boundary/outcome.js';
import type { DispatchOptions } from '../call/dispatch.js';
import type { ToolErrorCode } from '../../boundary/errors.js';
import type { ToolHost } from '../host/tool-host.js';
import type { LogLevel } from '../../boundary/plugin-api.js';

/** Options every adapter takes. */
export interface AdapterOptions {
  /** passed with every call (handlers see it as ctx.sessionId) */
  sessionId?: string;
  /** receives the handlers' `ctx.log` lines and their level */
  onLog?(message: string, level: LogLevel): void;
  /** receives the handlers' `ctx.progress` */
  onProgress?(done: number, total?: number): void;
}

/**
 * A tool call that failed: the framework's failed-tool signal. Its `message`
 * and its `toString()` are the envelope the model reads (`{"error":"…","code":"…"}`),
 * so whatever the framework shows the model from the error keeps the code.
 */
export class ToolshedToolError extends Error {
  /** the envelope's code */
  readonly code: ToolErrorCode;
  /** the tool that failed */
  readonly tool: string;
  /** the message for the model, without the envelope */
  readonly reason: string;

  constructor(tool: string, outcome: Extract<CallOutcome, { ok: false }>) {
    super(envelope(outcome));
    this.name = 'ToolshedToolError';
    this.code = outcome.code;
    this.tool = tool;
    this.reason = outcome.message;
  }

  /**
   * The envelope alone. AI SDK 7 builds the model's error text from `toString()` (AI SDK 6 from
   * `message`), so without this the model would read `ToolshedToolError: {"error":…}`.
   */
  override toString(): string {
    return this.message;
  }
}

/** What the framework knows about one call. */
export interface FrameworkCall {
  callId?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** Runs one call through the host's full dispatch with the adapter's options and the framework's call id and signal. */
export function callThrough(
  host: ToolHost,
  name: string,
  args: unknown,
  options: AdapterOptions,
  call: FrameworkCall,
): Promise<CallOutcome> {
  const dispatch: DispatchOptions = {};
  if (options.sessionId !== undefined) dispatch.sessionId = options.sessionId;
  if (options.onLog) dispatch.onLog = options.onLog;
  if (options.onProgress) dispatch.onProgress = options.onProgress;
  if (call.callId !== undefined) dispatch.callId = call.callId;
  if (call.signal) dispatch.signal = call.signal;
  return host.call(name, args, dispatch);
}

/** The result text of a call, or a thrown ToolshedToolError. */
export async function resultOrThrow(
  host: ToolHost,
  name: string,
  args: unknown,
  options: AdapterOptions,
  call: FrameworkCall,
): Promise<string> {
  const outcome = await callThrough(host, name, args, options, call);
  if (!outcome.ok) throw new ToolshedToolError(name, outcome);
  return outcome.text;
}
