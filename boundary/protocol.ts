/**
 * Every message that crosses a thread or process boundary. Worker tasks go
 * host → worker through Piscina, and host → child in `task` frames (channel.ts); host RPC
 * goes worker or child → host through Comlink behind the guard in core/runners/rpc-guard.ts,
 * and a thread-tier worker's log, progress and nested calls also on its inline port (its
 * `ctx.session` operations take the RPC, in both tiers).
 */
import type { SerializedError } from './errors.js';
import type { CallOutcome, RichContent } from './outcome.js';
import type { FileRoots, CodeCallableTools } from './plugin-api.js';
import type { Pins } from './pins.js';

export type { CallOutcome, CodeCallableTools };

/** What mapping a reply to an outcome needs to know of the call (tier-outcome.ts). */
export interface TierCall {
  /** the tool's name */
  tool: string;
  /** its plugin's name (named in a TOOL_RESULT_INVALID message) */
  plugin: string;
  timeoutMs: number;
  maxResultChars: number;
}
export type { Tier } from './tier.js';

/** Extract a plugin's serializable manifest. */
export interface ManifestTask {
  kind: 'manifest';
  /** file URL of the plugin entry module */
  entry: string;
  /** the plugin's pins (pins.ts), checked before the import: a trusted plugin's, taken as it loads */
  pins?: Pins;
}

/**
 * What a check task and a handler task both carry: the plugin, the call's id and deadline, and the
 * plugin's ctx.cwd, ctx.roots, ctx.options and env grant.
 */
interface CallTaskBase {
  entry: string;
  /** the plugin's env grant: the task's `process.env` and `ctx.env` (absent: the worker's own env) */
  env?: Record<string, string>;
  /** unguessable (a random UUID): it names the call in host RPC, so a plugin cannot act in another call's name */
  callId: string;
  timeoutMs: number;
  cwd: string;
  /**
   * The plugin's ctx.roots, ctx.options and env grant packed as one JSON string (`packScope`),
   * the same for every task of the plugin: the thread tier sends it instead of `roots`,
   * `options` and `env`, and the worker parses each distinct one once.
   */
  scope?: string;
  /** ctx.roots (absent when `scope` carries it) */
  roots?: FileRoots;
  /** ctx.options (absent when `scope` carries it) */
  options?: Readonly<Record<string, unknown>>;
}

/** Run one custom availability check. */
export interface CheckTask extends CallTaskBase {
  kind: 'check';
  checkId: string;
}

/** Run one tool handler. */
export interface HandlerTask extends CallTaskBase {
  kind: 'handler';
  tool: string;
  args: unknown;
  sessionId?: string;
  maxResultChars: number;
  /** ctx.secrets: the caller's secrets the tool declares, for this call only (never in `scope`, which workers keep) */
  secrets?: Record<string, string>;
}

/** What every check and handler task of one plugin shares: its ctx.cwd, ctx.roots and ctx.options. */
export interface TaskScope {
  cwd: string;
  roots: FileRoots;
  options: Readonly<Record<string, unknown>>;
}

/** What a packed scope (`CheckTask.scope`) holds. */
export interface PackedScope {
  roots: TaskScope['roots'];
  options: TaskScope['options'];
  env?: Record<string, string>;
}

/** A task posted to a plugin worker. */
export type WorkerTask = ManifestTask | CheckTask | HandlerTask;

/** What a worker returns for a task; tool and check failures are values, never rejections. */
export type WorkerReply<T = unknown> = { ok: true; value: T } | { ok: false; error: SerializedError };

/** A handler's return value normalized: the text sent to the model and its original length. */
export interface NormalizedResult {
  text: string;
  /** length before the worker-side cap; equals text.length when nothing was cut */
  originalLength: number;
  /** the blocks of a result richer than text (MCP-server tools only) */
  content?: RichContent;
  /** the tool reported a failure as its result (MCP `isError`): `text` is the message */
  isError?: boolean;
}

/**
 * What the thread tier's Piscina entry answers: a handler's whole text alone when that is all
 * its reply says (succeeded, nothing cut, no blocks), the `WorkerReply` otherwise. A bare string
 * is the smallest message a structured clone makes; `poolReply` and `workerReply` (pool-reply.ts) convert.
 */
export type PoolReply = WorkerReply | string;

/** A custom check's verdict (the availability cache keeps it as is). */
export interface CheckVerdict {
  ok: boolean;
  reason?: string;
}

/**
 * A nested call the host has gated (exposure, arguments, grants, depth) and hands back to the
 * worker that made it, as the answer to its callTool: the worker runs `task` itself, posts an
 * `InlineReply` with `id` on its inline port (the host's dispatch finishes its bookkeeping
 * there), and maps the reply with tierOutcome and `call`, as the host's dispatch would.
 */
export interface HandOff {
  id: number;
  task: HandlerTask;
  /** how to map the reply; the pool leaves it out and dispatch, which knows the call, fills it in */
  call?: TierCall;
}

/** The host's answer to callTool: the outcome, or the call handed back to run here. */
export type CallAnswer = CallOutcome | { runHere: HandOff & { call: TierCall } };

/** One `ctx.session` operation as it crosses to the host: the value travels as JSON text. */
export interface SessionRequest {
  op: 'get' | 'set' | 'delete';
  key: string;
  /** `set`: the value's JSON text */
  value?: string;
  /** `set`: the value's time to live, in ms (absent: the host's `state.sessionTtlMs`) */
  ttlMs?: number;
}

/** The host's answer to a `ctx.session` operation: a `get`'s JSON text (absent: no value), or why it failed. */
export type SessionAnswer =
  | { ok: true; value?: string }
  | { ok: false; code: 'STATE_REFUSED' | 'STATE_UNAVAILABLE'; message: string };

/** Methods a worker may call on the host. Nothing else passes the guard. */
export interface HostRpc {
  /** `level`: a LogLevel (anything else is taken as 'info'); absent from an older worker */
  log(callId: string, message: string, level?: string): void;
  progress(callId: string, done: number, total?: number): void;
  callTool(callId: string, name: string, args: unknown): Promise<CallAnswer>;
  sandboxTools(callId: string): Promise<CodeCallableTools>;
  /** a `ctx.session` operation of the running call; the host scopes it to the call's session and plugin */
  session(callId: string, request: SessionRequest): Promise<SessionAnswer>;
}

/** A thread-tier worker's `workerData`: the pins it checks before importing (pins.ts). */
export type { WorkerPins } from './pins.js';

/** Posted once by each worker on its parent port to hand the host its RPC port and its inline port. */
export interface RpcPortMessage {
  type: 'toolshed:rpc-port';
  port: import('node:worker_threads').MessagePort;
  /** where the host sends nested calls to run inline in this worker (see InlineRequest) */
  inline?: import('node:worker_threads').MessagePort;
}

/**
 * Host → worker on the inline port: run this handler task here, beside the
 * running call that asked for it through ctx.callTool (its worker is busy
 * waiting for it, so it cannot wait for a free one).
 */
export interface InlineRequest {
  id: number;
  task: HandlerTask;
}

/** Worker → host on the inline port: the outcome of inline request `id`. */
export interface InlineReply {
  id: number;
  reply: WorkerReply<NormalizedResult>;
}

/**
 * Worker → host on the inline port: a running call's `ctx.callTool`, the same request as the
 * RPC's `callTool` (the host coerces every field as it does there) on a lighter channel than
 * Comlink, carrying the replies of handed-off calls not reported yet (`done`).
 */
export interface InlineCall {
  type: 'toolshed:call';
  id: number;
  callId: string;
  name: string;
  args: unknown;
  done: InlineReply[];
}

/** Host → worker on the inline port: the answer to InlineCall `id`. */
export interface InlineAnswer {
  type: 'toolshed:answer';
  id: number;
  answer: CallAnswer;
}

/** Worker → host on the inline port: a running call's ctx.log line (coerced and cut as the RPC's `log`). */
export interface InlineLog {
  type: 'toolshed:log';
  callId: string;
  message: string;
  level?: string;
}

/** Worker → host on the inline port: a running call's ctx.progress (coerced as the RPC's `progress`). */
export interface InlineProgress {
  type: 'toolshed:progress';
  callId: string;
  done: number;
  total?: number;
}

/** Worker → host on the inline port: replies of handed-off calls, when no call carried them soon after. */
export interface InlineDone {
  type: 'toolshed:done';
  done: InlineReply[];
}

/** Posted by the host on a worker's RPC port: stop the call `callId` (abort its ctx.signal). */
export interface CancelMessage {
  type: 'toolshed:cancel';
  callId: string;
}

/** A serializable tool as extracted from a plugin object inside a worker. */
export interface RawToolManifest {
  name: unknown;
  toolset?: unknown;
  description?: unknown;
  parameters?: unknown;
  requires?: unknown;
  limits?: unknown;
  codeCallable?: unknown;
  /** the deprecated alias of `codeCallable` */
  sandbox?: unknown;
  annotations?: unknown;
  longRunning?: unknown;
  /** JSON Schema (a Standard Schema object converted in the worker, like `parameters`) */
  outputSchema?: unknown;
  title?: unknown;
  icons?: unknown;
  examples?: unknown;
  /** the names of the caller's secrets its handler needs (ToolSpec.secrets) */
  secrets?: unknown;
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
  /**
   * The packages that converted Standard Schema parameters to JSON Schema (package.json path and
   * version, see sandbox/worker/standard-schema.ts): the manifest cache extracts again when one changed.
   */
  schemaLibraries?: unknown;
}

// ---------------------------------------------------------------------------
// The process tier. Host and child exchange length-prefixed JSON frames over
// the child's fd 3 (see process/channel.ts); everything the child sends is
// validated by the host before use, because plugin code can write to that fd.

/** Settings the host sends the child once, before anything else (never via argv or env, which other users can read). */
export interface ChildInit {
  type: 'init';
  /** the only environment variables the child's plugin code may see */
  env: Record<string, string>;
  /** file URL of the plugin entry module, imported as soon as the child starts */
  entry: string;
  /** the largest frame the child may send; the child caps its own output below it */
  maxFrameBytes: number;
}

/**
 * Run one task in the child. Checks and handlers stop at their own `timeoutMs`; the child gives up on a manifest task
 * after `abortAfterMs`.
 */
export interface ChildTaskFrame {
  type: 'task';
  /** a random UUID per task: a reply is matched to it, so a reply forged by plugin code cannot answer another task */
  id: string;
  task: WorkerTask;
  abortAfterMs: number;
}

/** The caller gave up on task `id`: stop it. */
interface ChildCancelFrame {
  type: 'cancel';
  id: string;
}

/** A Comlink message of the host RPC (child wraps, host exposes behind the guard). */
export interface RpcFrame {
  type: 'rpc';
  data: unknown;
}

/** Every frame the host sends to a child. */
export type HostToChild = ChildInit | ChildTaskFrame | ChildCancelFrame | RpcFrame;

/** Why the child could not deliver a task's reply (a manifest import that never settled). */
export type ChildFailure =
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'crashed'; message: string; outOfMemory: boolean };

/** A task's outcome as the child reports it. */
export type ChildReply = WorkerReply | { ok: false; failure: ChildFailure };

/** The child is ready for tasks; `pid` is its pid as it sees it (1 in its own PID namespace). */
export interface ChildReadyFrame {
  type: 'ready';
  pid: number;
}

/** The outcome of task `id`. */
export interface ChildReplyFrame {
  type: 'reply';
  id: string;
  reply: ChildReply;
}

/** Every frame a child sends to the host. */
export type ChildToHost = ChildReadyFrame | ChildReplyFrame | RpcFrame;
