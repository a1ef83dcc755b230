/**
 * `createTestContext()` (exported from `toolshed/plugin`): a complete `ctx`
 * for a plugin's unit tests, with fakes that record what the handler did.
 * A handler called with it type-checks exactly as it would in the host.
 */
import { failure } from './outcome.js';
import { resultText } from './normalize.js';
import { toolContext, type ContextLink } from './tool-context.js';
import type { FileRoots, LogLevel, CodeCallableTools, ToolContext } from './plugin-api.js';
import { DEFAULT_CODE_LIMITS } from './code-limits.js';
import { liveText, sessionOperation, type SessionMaps, type SessionScope } from './session-state.js';

/** What a test may set; everything has a harmless default. */
export interface TestContextOptions {
  /** ctx.env (default {}) */
  env?: Record<string, string>;
  /** ctx.secrets, the caller's secrets a tool declares (default {}) */
  secrets?: Record<string, string>;
  /** ctx.cwd (default process.cwd()) */
  cwd?: string;
  /** ctx.roots (default: read and write in `cwd`) */
  roots?: FileRoots;
  /** ctx.options (default {}) */
  options?: Record<string, unknown>;
  sessionId?: string;
  /** ctx.maxResultChars, the call's result cap (default 100000, the host's `limits.maxResultChars`) */
  maxResultChars?: number;
  /** answers ctx.callTool (default: rejects, naming the tool) */
  callTool?: (name: string, args: unknown) => unknown;
  /** what ctx.sandboxTools() resolves to (default: no tools, the host's default limits) */
  sandboxTools?: CodeCallableTools;
  /** ctx.session's default and longest time to live, in ms (default 3600000, as the host's `state.sessionTtlMs`) */
  sessionTtlMs?: number;
  /** the clock ctx.session's values expire by (default Date.now): a test moves it to see a value expire */
  now?: () => number;
}

/** A `ToolContext` plus what the handler did with it. */
export interface TestContext extends ToolContext {
  /** every ctx.log line */
  readonly logs: string[];
  /** every ctx.log line with its level (coerced as in the host: 'info' when absent or unknown) */
  readonly logEntries: Array<{ message: string; level: LogLevel }>;
  /** every ctx.progress call */
  readonly progressEvents: Array<{ done: number; total?: number }>;
  /** every ctx.callTool call */
  readonly toolCalls: Array<{ name: string; args: unknown }>;
  /** what ctx.session holds now, by key, as JSON values (expired ones left out) */
  sessionValues(): Record<string, unknown>;
  /** aborts ctx.signal, as a timeout or a cancel would */
  abort(reason?: unknown): void;
}

const DEFAULT_SANDBOX: CodeCallableTools = { tools: [], limits: { ...DEFAULT_CODE_LIMITS } };

/** One map of fields in memory: what ctx.session keeps in a test (the host keeps it in its state store). */
class TestMaps implements SessionMaps {
  readonly fields = new Map<string, string>();

  async mapGet(): Promise<Record<string, string>> {
    return Object.fromEntries(this.fields);
  }

  async mapSet(_key: string, fields: Readonly<Record<string, string>>): Promise<void> {
    for (const [field, value] of Object.entries(fields)) this.fields.set(field, value);
  }

  async mapDelete(_key: string, fields: readonly string[]): Promise<void> {
    for (const field of fields) this.fields.delete(field);
  }
}

/**
 * A `ctx` for unit tests, with fakes for `log`, `progress`, `callTool` and `sandboxTools`, and a
 * `session` kept in memory under the host's own rules (limits, expiry; one context, one session). It is built
 * by the code that builds a real call's context in the host's workers: env, roots and options are
 * frozen, `callTool`'s arguments default to `{}`, its answer comes back as the handler in the host
 * would get it (a value returned as text and parsed back), and a call with no fake rejects with an
 * Error whose `code` is `UNKNOWN_TOOL`.
 * @example
 * const ctx = createTestContext({ env: { WEATHER_API_KEY: 'test' } });
 * expect(await tool.handler({ city: 'Oslo' }, ctx)).toEqual({ tempC: 21 });
 * expect(ctx.logs).toEqual([]);
 */
export function createTestContext(options: TestContextOptions = {}): TestContext {
  const controller = new AbortController();
  const logs: string[] = [];
  const logEntries: Array<{ message: string; level: LogLevel }> = [];
  const progressEvents: Array<{ done: number; total?: number }> = [];
  const toolCalls: Array<{ name: string; args: unknown }> = [];
  const maps = new TestMaps();
  const scope: SessionScope = {
    maps,
    mapKey: 'test',
    maxTtlMs: options.sessionTtlMs ?? 3_600_000,
    now: options.now ?? Date.now,
  };
  const sessionValues = () => {
    const values: Record<string, unknown> = {};
    for (const [key, field] of maps.fields) {
      const text = liveText(field, scope.now());
      if (text !== undefined) values[key] = JSON.parse(text);
    }
    return values;
  };
  const link: ContextLink = {
    log: (_, message, level) => {
      logs.push(message);
      logEntries.push({ message, level });
    },
    progress: (_, done, total) => void progressEvents.push(total === undefined ? { done } : { done, total }),
    async callTool(_, name, args) {
      toolCalls.push({ name, args });
      if (!options.callTool)
        return failure('UNKNOWN_TOOL', `ctx.callTool('${name}') was called, but the test context has no callTool fake`);
      return { ok: true, text: resultText(await options.callTool(name, args)) };
    },
    sandboxTools: async () => options.sandboxTools ?? DEFAULT_SANDBOX,
    session: (_, request) => sessionOperation(scope, request),
  };
  const cwd = options.cwd ?? process.cwd();
  const ctx = toolContext(
    {
      callId: 'test',
      stop: controller,
      env: { ...options.env },
      secrets: { ...options.secrets },
      cwd,
      // Copies, as a task in the host carries its own: freezing them leaves the test's objects alone.
      roots: options.roots ? structuredClone(options.roots) : { read: [cwd], write: [cwd] },
      options: structuredClone(options.options ?? {}),
      maxResultChars: options.maxResultChars ?? 100_000,
      sessionId: options.sessionId,
    },
    link,
  );
  return Object.assign(ctx, {
    logs,
    logEntries,
    progressEvents,
    toolCalls,
    sessionValues,
    abort: (reason?: unknown) => controller.abort(reason),
  });
}
