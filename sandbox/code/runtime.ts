import { createSandboxContext, disposeSandbox, readToolKeys } from './context.js';
import { acquireEngine, EngineUnavailableError, releaseEngine, type Engine } from './engine.js';
import { abortedResult } from './failures.js';
import { CodeSession } from './session.js';
import { CodeErrorCode, type CodeLimits, type CodeResult, type CodeToolSpec, type RunCodeOptions } from './types.js';

// The runtime's public face: runCode, probeExports, their types and error codes.
export { CodeErrorCode, EngineUnavailableError };
export type {
  CodeError,
  CodeLimits,
  CodeResult,
  CodeToolSpec,
  RunCodeOptions,
  ToolCallContext,
} from './types.js';

/** Heap given to the throwaway context of `probeExports`; it only installs the tools. */
const PROBE_MEMORY_MB = 16;

/**
 * Runs model-written JavaScript in a fresh QuickJS runtime with `tools` and `console` installed.
 * Never throws for anything the script does; throws a TypeError only for invalid options.
 *
 * @example
 * const result = await runCode({ code: 'return (await tools.read_file({ path: "a.txt" })).length',
 *   tools, callTool, timeoutMs: 30000, memoryMb: 64, maxToolCalls: 50, maxOutputChars: 20000 });
 */
export async function runCode(options: RunCodeOptions): Promise<CodeResult> {
  assertLimits(options);
  const startedAt = performance.now();
  const elapsed = (): number => Math.round(performance.now() - startedAt);
  if (options.signal?.aborted) return abortedResult(options.signal.reason, { output: '', toolCalls: 0, durationMs: 0 });
  let engine: Engine;
  try {
    engine = await acquireEngine(options.memoryMb);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const failure = { name: 'EngineUnavailableError', message, code: CodeErrorCode.unavailable };
    return { status: 'error', output: '', result: null, toolCalls: 0, durationMs: elapsed(), error: failure };
  }
  return new CodeSession(engine, options, startedAt).run();
}

/**
 * Creates a throwaway context with the given tools (and `tools.search`, given its host tool)
 * installed and returns the names that `Object.keys(tools)` yields inside it. Throws a clear error if QuickJS cannot
 * start.
 */
export async function probeExports(tools: CodeToolSpec[], searchTool?: string): Promise<string[]> {
  const engine = await acquireEngine(PROBE_MEMORY_MB);
  const refuse = (): undefined => undefined;
  let sandbox;
  try {
    sandbox = createSandboxContext(
      engine,
      tools,
      PROBE_MEMORY_MB,
      { call: refuse, print: refuse, done: refuse },
      () => false,
      searchTool,
    );
  } catch (error) {
    releaseEngine(engine, false);
    throw new EngineUnavailableError(error);
  }
  try {
    return readToolKeys(sandbox.context);
  } finally {
    releaseEngine(engine, disposeSandbox(sandbox));
  }
}

function assertLimits(limits: CodeLimits): void {
  for (const key of ['timeoutMs', 'memoryMb', 'maxOutputChars'] as const) {
    const value = limits[key];
    if (!Number.isFinite(value) || value <= 0)
      throw new TypeError(`runCode: ${key} must be a positive number, got ${String(value)}`);
  }
  if (!Number.isInteger(limits.maxToolCalls) || limits.maxToolCalls < 0) {
    throw new TypeError(`runCode: maxToolCalls must be a non-negative integer, got ${String(limits.maxToolCalls)}`);
  }
}
