/**
 * `createTestContext()` (exported from `toolshed/plugin`): a complete `ctx`
 * for a plugin's unit tests, with fakes that record what the handler did.
 * A handler called with it type-checks exactly as it would in the host.
 */
import type { FileRoots, SandboxToolset, ToolAbortSignal, ToolContext } from './plugin.js';
import { DEFAULT_CODE_LIMITS } from './code-limits.js';

/** What a test may set; everything has a harmless default. */
export interface TestContextOptions {
  /** ctx.env (default {}) */
  env?: Record<string, string>;
  /** ctx.cwd (default process.cwd()) */
  cwd?: string;
  /** ctx.roots (default: read and write in `cwd`) */
  roots?: FileRoots;
  /** ctx.options (default {}) */
  options?: Record<string, unknown>;
  sessionId?: string;
  /** answers ctx.callTool (default: rejects, naming the tool) */
  callTool?: (name: string, args: unknown) => unknown;
  /** what ctx.sandboxTools() resolves to (default: no tools, the host's default limits) */
  sandboxTools?: SandboxToolset;
}

/** A `ToolContext` plus what the handler did with it. */
export interface TestContext extends ToolContext {
  /** every ctx.log line */
  readonly logs: string[];
  /** every ctx.progress call */
  readonly progressEvents: Array<{ done: number; total?: number }>;
  /** every ctx.callTool call */
  readonly toolCalls: Array<{ name: string; args: unknown }>;
  /** aborts ctx.signal, as a timeout or a cancel would */
  abort(reason?: unknown): void;
}

const DEFAULT_SANDBOX: SandboxToolset = { tools: [], limits: { ...DEFAULT_CODE_LIMITS } };

/**
 * A `ctx` for unit tests, with fakes for `log`, `progress`, `callTool` and `sandboxTools`.
 * @example
 * const ctx = createTestContext({ env: { WEATHER_API_KEY: 'test' } });
 * expect(await tool.handler({ city: 'Oslo' }, ctx)).toEqual({ tempC: 21 });
 * expect(ctx.logs).toEqual([]);
 */
export function createTestContext(options: TestContextOptions = {}): TestContext {
  const controller = new AbortController();
  const logs: string[] = [];
  const progressEvents: Array<{ done: number; total?: number }> = [];
  const toolCalls: Array<{ name: string; args: unknown }> = [];
  return {
    signal: controller.signal as ToolAbortSignal,
    env: { ...options.env },
    cwd: options.cwd ?? process.cwd(),
    roots: options.roots ?? { read: [options.cwd ?? process.cwd()], write: [options.cwd ?? process.cwd()] },
    options: Object.freeze({ ...options.options }),
    ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
    logs,
    progressEvents,
    toolCalls,
    log: (message) => void logs.push(message),
    progress: (done, total) => void progressEvents.push(total === undefined ? { done } : { done, total }),
    async callTool(name, args) {
      toolCalls.push({ name, args });
      if (!options.callTool) throw new Error(`ctx.callTool('${name}') was called, but the test context has no callTool fake`);
      return options.callTool(name, args);
    },
    sandboxTools: async () => options.sandboxTools ?? DEFAULT_SANDBOX,
    abort: (reason) => controller.abort(reason),
  };
}
