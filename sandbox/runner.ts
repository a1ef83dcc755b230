/**
 * The seam between the host and a trust tier. The thread tier (pools.ts) and
 * the process tier both implement `Runner`; the host never knows which one it
 * talks to.
 */
import type { CallOutcome, CheckVerdict, HandlerOutput, RawManifest, SandboxToolset, WorkerReply } from './protocol.js';

/** What the host lends a running call: where its logs, progress and nested calls go. */
export interface CallHooks {
  log?(message: string): void;
  progress?(done: number, total?: number): void;
  callTool(name: string, args: unknown): Promise<CallOutcome>;
  /** the tools sandboxed code may call (execute_code), when the host offers them */
  sandboxTools?(): Promise<SandboxToolset>;
}

/** One handler invocation. */
export interface HandlerRequest {
  tool: string;
  args: unknown;
  timeoutMs: number;
  maxResultChars: number;
  sessionId?: string;
}

/** One check invocation. */
export interface CheckRequest {
  checkId: string;
  timeoutMs: number;
}

/** Why a runner could not deliver a result. */
export type RunnerFailure =
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'cancelled' }
  | { kind: 'crashed'; message: string; outOfMemory: boolean }
  | { kind: 'queue-full'; limit: number };

/** A worker reply, or the runner's own failure. */
export type RunOutcome<T> = WorkerReply<T> | { ok: false; failure: RunnerFailure };

/** Live numbers for explain and tests. */
export interface RunnerStats {
  started: boolean;
  threads: number;
  inFlight: number;
  completed: number;
  guard: { passed: number; refused: number; lastRefusal?: string };
}

/** A plugin's execution tier. */
export interface Runner {
  readonly tier: 'thread' | 'process';
  manifest(entry?: string): Promise<RunOutcome<RawManifest>>;
  check(request: CheckRequest, hooks: CallHooks): Promise<RunOutcome<CheckVerdict>>;
  handle(request: HandlerRequest, hooks: CallHooks, signal?: AbortSignal): Promise<RunOutcome<HandlerOutput>>;
  stats(): RunnerStats;
  close(): Promise<void>;
}
