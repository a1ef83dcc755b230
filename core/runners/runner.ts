/**
 * The seam between the host and where a plugin's code runs. The thread tier
 * (thread/thread-runner.ts) and the process tier (process/process-runner.ts)
 * both implement `Runner`, and an MCP server's tools go through the same seam
 * (core/mcp-client/runner.ts); the host never knows which one it talks to. Both
 * extract manifests through `ManifestExtractor` (thread/manifest-pool.ts, and
 * an untrusted plugin's own sandbox). Limits both tiers derive the same way live here too.
 */
import type { LogLevel } from '../../boundary/plugin-api.js';
import type {
  CallOutcome,
  CheckVerdict,
  NormalizedResult,
  HandOff,
  RawManifest,
  CodeCallableTools,
  SessionAnswer,
  SessionRequest,
  Tier,
} from '../../boundary/protocol.js';
import type { Protections } from './protections.js';
import type { ConnectionReport } from './connection-report.js';
import type { RunOutcome } from '../../boundary/runner-failure.js';
import type { Pins } from '../../boundary/pins.js';
import type { Elicitor } from '../../boundary/server-requests.js';
import type { Identity } from '../../boundary/identity.js';

/**
 * Where a nested call comes from: the running call (`callId`) and the worker
 * it runs in (`via`, opaque outside its tier). A runner whose pool holds that
 * worker runs the nested call inline there instead of waiting for a free one.
 */
export interface CallOrigin {
  readonly via: object;
  readonly callId: string;
  /**
   * Hands the gated nested call to that worker as the answer to its callTool, instead of
   * sending it on the inline port: it runs there and reports on the inline port as usual.
   * Present only while nothing after the tier can change the call's outcome (dispatch
   * fills in `call`, what the worker needs to map the result as dispatch does).
   */
  readonly handOff?: (run: HandOff) => void;
}

/** What the host lends a running call: where its logs, progress and nested calls go. */
export interface CallHooks {
  /** `level` is absent from a tier that has none (it then means 'info') */
  log?(message: string, level?: LogLevel): void;
  /** answers an MCP server's elicitation request made during the call (the call's own `onElicitation`) */
  elicit?: Elicitor;
  progress?(done: number, total?: number): void;
  /** a nested call; `origin` says which running call and worker made it, when the tier knows */
  callTool(name: string, args: unknown, origin?: CallOrigin): Promise<CallOutcome>;
  /** the tools sandboxed code may call (execute_code), when the host offers them */
  sandboxTools?(): Promise<CodeCallableTools>;
  /** a ctx.session operation, already coerced, in the call's session and plugin (handlers only) */
  session?(request: SessionRequest): Promise<SessionAnswer>;
}

/** One handler invocation. */
export interface HandlerRequest {
  tool: string;
  args: unknown;
  timeoutMs: number;
  maxResultChars: number;
  /** the session the call belongs to; the admission queue is fair between sessions too */
  sessionId?: string;
  /** the caller's secrets the tool declares (ctx.secrets), asked of the credentials provider for this call */
  secrets?: Record<string, string>;
  /**
   * Who the call is made for, token included: only a runner that acts for the caller with the
   * server's own credentials reads it (an MCP server with per-identity `credentials`); the plugin
   * tiers never put it in a task.
   */
  identity?: Identity;
}

/** One check invocation. */
export interface CheckRequest {
  checkId: string;
  timeoutMs: number;
}

/** Live numbers for explain and tests. */
export interface RunnerStats {
  started: boolean;
  threads: number;
  /** calls running or waiting for a worker */
  inFlight: number;
  /** the most calls it runs at once (its worker threads when started) */
  capacity: number;
  completed: number;
  guard: { passed: number; refused: number; lastRefusal?: string };
  /** malformed messages from its workers (or its child) that were dropped, and the last reason */
  dropped: { count: number; last?: string };
}

/** The thread pool a trusted plugin runs in (the one trusted plugins share, or its own) and why. */
export interface PoolPlacement {
  kind: 'shared' | 'own';
  /** in words, for explain: "it holds env grants (SVC_TOKEN)" */
  reason: string;
}

/** A plugin's execution tier. */
export interface Runner {
  /** `remote`: the code runs elsewhere and is reached over the network (an MCP server over HTTP) */
  readonly tier: Tier;
  check(request: CheckRequest, hooks: CallHooks): Promise<RunOutcome<CheckVerdict>>;
  /** `origin`: the running call that made this one through ctx.callTool, if any */
  handle(
    request: HandlerRequest,
    hooks: CallHooks,
    signal?: AbortSignal,
    origin?: CallOrigin,
  ): Promise<RunOutcome<NormalizedResult>>;
  /** whether a nested call made by `origin` would run inline in its caller's worker (needs no free worker) */
  runsInline?(origin: CallOrigin | undefined): boolean;
  stats(): RunnerStats;
  /** the OS-level protections its code runs under; undefined for the thread tier, which has none of its own */
  protections(): Protections | undefined;
  /**
   * a runner that speaks to a server (an MCP server) reports that link; its tools are available only while it is
   * connected
   */
  connection?(): ConnectionReport;
  /** the thread tier: which pool its calls run in, and why */
  placement?(): PoolPlacement;
  close(): Promise<void>;
}

/**
 * Extracts plugin manifests (imports the module and turns it into data) in a
 * tier's workers: the shared extraction pool of trusted plugins, or an
 * untrusted plugin's own sandbox (which extracts only its own entry).
 */
export interface ManifestExtractor {
  /**
   * `entry` is the file URL of the plugin's entry module; importing it and extracting may take
   * `timeoutMs` (a `timeout` failure after that, with the worker or child doing it stopped).
   * `pins`: the plugin's files as it loaded, checked before it is imported (trusted plugins).
   */
  extract(entry: string, timeoutMs: number, pins?: Pins): Promise<RunOutcome<RawManifest>>;
  close(): Promise<void>;
}

/** The V8 heap limits of a worker whose plugin may use `memoryMb` (young generation an eighth, within 4–64 MB). */
export function heapLimits(memoryMb: number): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } {
  return {
    maxOldGenerationSizeMb: memoryMb,
    maxYoungGenerationSizeMb: Math.max(4, Math.min(64, Math.floor(memoryMb / 8))),
  };
}
