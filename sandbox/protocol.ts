/**
 * Every message that crosses a thread or process boundary. Worker tasks go
 * host → worker through Piscina; host RPC goes worker → host through Comlink
 * behind the guard in rpc-guard.ts.
 */
import type { SerializedError } from '../core/errors.js';

/** Extract a plugin's serializable manifest. */
export interface ManifestTask {
  kind: 'manifest';
  /** file URL of the plugin entry module */
  entry: string;
}

/** Run one custom availability check. */
export interface CheckTask {
  kind: 'check';
  entry: string;
  checkId: string;
  callId: number;
  timeoutMs: number;
  cwd: string;
}

/** Run one tool handler. */
export interface HandlerTask {
  kind: 'handler';
  entry: string;
  tool: string;
  args: unknown;
  callId: number;
  sessionId?: string;
  timeoutMs: number;
  maxResultChars: number;
  cwd: string;
}

/** A task posted to a plugin worker. */
export type WorkerTask = ManifestTask | CheckTask | HandlerTask;

/** What a worker returns for a task; tool and check failures are values, never rejections. */
export type WorkerReply<T = unknown> = { ok: true; value: T } | { ok: false; error: SerializedError };

/** A handler's normalized output: the text sent to the model and its original length. */
export interface HandlerOutput {
  text: string;
  /** length before the worker-side cap; equals text.length when nothing was cut */
  originalLength: number;
}

/** A custom check's verdict. */
export interface CheckVerdict {
  ok: boolean;
  reason?: string;
}

/** The structured outcome of one dispatch, as `callTool` sees it. */
export type CallOutcome = { ok: true; text: string } | { ok: false; code: string; message: string };

/** Methods a worker may call on the host. Nothing else passes the guard. */
export interface HostRpc {
  log(callId: number, message: string): void;
  progress(callId: number, done: number, total?: number): void;
  callTool(callId: number, name: string, args: unknown): Promise<CallOutcome>;
}

/** The allow-list of `HostRpc` method names. */
export const HOST_RPC_METHODS: readonly (keyof HostRpc)[] = Object.freeze(['log', 'progress', 'callTool']);

/** Posted once by each worker on its parent port to hand the host its RPC port. */
export interface RpcPortMessage {
  type: 'toolshed:rpc-port';
  port: import('node:worker_threads').MessagePort;
}

/** A serializable tool as extracted from a plugin object inside a worker. */
export interface RawToolManifest {
  name: unknown;
  toolset?: unknown;
  description?: unknown;
  parameters?: unknown;
  requires?: unknown;
  limits?: unknown;
  sandbox?: unknown;
  /** `typeof handler`: must be 'function' */
  handler: string;
  /** id shared by every tool that uses the same check function */
  checkId?: string;
  /** `typeof check` when present but not a function */
  checkType?: string;
}

/** A plugin object turned into data, before the host validates it. */
export interface RawManifest {
  apiVersion?: unknown;
  toolsets?: unknown;
  permissions?: unknown;
  tools: RawToolManifest[] | unknown;
}
