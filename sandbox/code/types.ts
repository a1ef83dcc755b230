import type { CodeCallableTool, CodeLimits } from '../../boundary/plugin-api.js';
import type { SandboxErrorCode, ToolErrorCode } from '../../boundary/errors.js';
import type { CallOutcome } from '../../boundary/outcome.js';

export type { CodeLimits };

/** The key of the search function on the sandbox's `tools` object. */
export const SEARCH_FUNCTION = 'search';

/** One function a script may call on `tools` (the host's `CodeCallableTool`). */
export type CodeToolSpec = CodeCallableTool;

/** What the host passes along with each tool call the script makes. */
export interface ToolCallContext {
  /** Aborted when the run ends (done, timed out, aborted) while the call is still in flight. */
  signal: AbortSignal;
}

/** Everything one `runCode` call needs. */
export interface RunCodeOptions extends CodeLimits {
  code: string;
  tools: CodeToolSpec[];
  /**
   * the embedder's bridge to dispatch: the runtime reads `ok`, `text`, `code` and `message` of its outcome,
   * checked for shape only (the code is passed on as reported, not checked against toolshed's code lists)
   */
  callTool: (name: string, args: unknown, context: ToolCallContext) => Promise<CallOutcome>;
  signal?: AbortSignal;
  /** the host tool `tools.search(query, limit?)` calls (through `callTool`); no `tools.search` without it */
  searchTool?: string;
}

/** Why a run failed, JSON-serialisable. */
export interface CodeError {
  name: string;
  message: string;
  code?: string;
  /** QuickJS stack of the script's own error, when it had one (lines are those of the submitted code). */
  stack?: string;
}

/** JSON-serialisable outcome of one script run. */
export interface CodeResult {
  status: 'ok' | 'error' | 'timeout';
  output: string;
  result: unknown;
  toolCalls: number;
  durationMs: number;
  error?: CodeError;
}

/**
 * Stable codes the runtime itself puts on errors, inside the script (tool refusals) or on
 * `CodeResult.error` (run failures). Tool errors keep the host envelope's own code.
 */
export const CodeErrorCode = {
  /** A tool call beyond `maxToolCalls`; it was not dispatched. */
  budgetExceeded: 'TOOL_BUDGET_EXCEEDED',
  /** The script called a name the sandbox was not given. */
  unknownTool: 'UNKNOWN_TOOL',
  /** `callTool` rejected or returned something that is not a `CallOutcome`. */
  toolFailed: 'TOOL_FAILED',
  /** The run hit `timeoutMs`. */
  timeout: 'SANDBOX_TIMEOUT',
  /** The host aborted the run through its AbortSignal. */
  aborted: 'SANDBOX_ABORTED',
  /** The script exhausted its heap. */
  outOfMemory: 'SANDBOX_OUT_OF_MEMORY',
  /** The script waits on a promise nothing can settle any more. */
  stalled: 'SANDBOX_STALLED',
  /** The interpreter itself failed (e.g. native stack exhausted by deeply nested code). */
  crashed: 'SANDBOX_CRASHED',
  /** QuickJS could not be loaded or instantiated. */
  unavailable: 'SANDBOX_UNAVAILABLE',
} as const satisfies Record<string, ToolErrorCode | SandboxErrorCode>;
