/**
 * The `ctx` a handler or check receives, built by one function for both its users: the worker's
 * task runner (sandbox/worker/task-runner.ts), for every real call, and `createTestContext()`
 * (test-context.ts), for a plugin's unit tests. So a test sees what a handler sees in the host: a
 * frozen env, roots and options, `log` and `progress` arguments coerced, `callTool` arguments
 * defaulting to `{}`, a nested call's failure thrown as an Error carrying its code, and its result
 * text parsed back to the JSON value it holds; `session` values turned into JSON text before they
 * cross, and its refusals thrown as coded Errors too.
 */
import { codedError } from './errors.js';
import type { CallOutcome } from './outcome.js';
import type {
  FileRoots,
  LogLevel,
  CodeCallableTools,
  SessionSetOptions,
  SessionState,
  ToolContext,
} from './plugin-api.js';
import type { SessionAnswer, SessionRequest } from './protocol.js';
import { badValue } from './session-state.js';

const LOG_LEVELS: ReadonlySet<string> = new Set<LogLevel>([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
]);

/** A log line's level as given by plugin code: one of the LogLevel names, anything else 'info'. */
export function logLevel(value: unknown): LogLevel {
  return typeof value === 'string' && LOG_LEVELS.has(value) ? (value as LogLevel) : 'info';
}

/** Where a context's calls go, by call id: one link serves every call of a realm (or a test). */
export interface ContextLink {
  log(callId: string, message: string, level: LogLevel): void;
  progress(callId: string, done: number, total: number | undefined): void;
  /** a nested call's outcome (ctx.callTool throws a failure as a coded Error) */
  callTool(callId: string, name: string, args: unknown): Promise<CallOutcome>;
  sandboxTools(callId: string): Promise<CodeCallableTools>;
  /** a ctx.session operation (ctx.session throws a failure as a coded Error) */
  session(callId: string, request: SessionRequest): Promise<SessionAnswer>;
}

/** One call's own parts of its context. */
interface ContextCall {
  callId: string;
  /** what ctx.signal reads (an AbortController, or the worker's cheaper CallStop) */
  stop: { readonly signal: AbortSignal };
  /** the env grant; frozen here unless it already is */
  env: Record<string, string> | Readonly<Record<string, string>>;
  /** the caller's secrets for this call (absent: none); frozen here unless they already are */
  secrets?: Record<string, string> | Readonly<Record<string, string>>;
  cwd: string;
  /** frozen all the way down here unless it already is (the caller passes its own copy) */
  roots: FileRoots;
  /** frozen all the way down here unless it already is (the caller passes its own copy) */
  options: Readonly<Record<string, unknown>>;
  /** the call's result cap (a handler's; a check has none) */
  maxResultChars?: number | undefined;
  sessionId?: string | undefined;
}

/** ctx.secrets of a call made with none. */
const NO_SECRETS: Readonly<Record<string, string>> = Object.freeze({});

/** The call's stop behind ctx.signal, on a property that is neither enumerable nor a string. */
const STOP = Symbol('toolshed.callStop');

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * ctx.signal, one getter shared by every context. A getter written into the context's object
 * literal is a new function per call, and V8 gives an object whose accessor is a function no
 * other object has a hidden class (map) of its own. Maps live in the old generation, so each
 * call's context, and all it reaches (the task, its promises, its reply), then survived every
 * scavenge until a full GC: in a worker running trivial handlers that was most of its GC time
 * (docs/performance.md, "Scale", item 1). Enumerable and configurable, as the literal's was.
 */
const SIGNAL: PropertyDescriptor = {
  get(this: { [STOP]: { readonly signal: AbortSignal } }): AbortSignal {
    return this[STOP].signal;
  },
  enumerable: true,
  configurable: true,
};

/**
 * Freezes a value all the way down (a frozen object is taken as done), so one call cannot change what the next one
 * sees.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * ctx.session: each operation goes to the host through `link` with the value as JSON text (made
 * here, so what cannot be JSON is refused before it crosses), and a failure comes back as a coded
 * Error. A class, so a context's session costs one small object and no closures.
 */
class SessionClient implements SessionState {
  constructor(
    private readonly callId: string,
    private readonly link: ContextLink,
  ) {}

  private async run(request: SessionRequest): Promise<string | undefined> {
    const answer = await this.link.session(this.callId, request);
    if (!answer.ok) throw codedError(answer.code, answer.message);
    return answer.value;
  }

  async get(key: string): Promise<unknown> {
    const text = await this.run({ op: 'get', key });
    return text === undefined ? undefined : JSON.parse(text);
  }

  async set(key: string, value: unknown, options?: SessionSetOptions): Promise<void> {
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch {
      text = undefined;
    }
    const wrong = badValue(text);
    if (wrong) throw codedError('STATE_REFUSED', `ctx.session: set('${String(key)}'): ${wrong}`);
    const request: SessionRequest = { op: 'set', key, value: text! };
    if (options?.ttlMs !== undefined) request.ttlMs = options.ttlMs;
    await this.run(request);
  }

  async delete(key: string): Promise<void> {
    await this.run({ op: 'delete', key });
  }
}

/** The context of call `call`, whose log, progress, nested calls and sandbox tools go through `link`. */
export function toolContext(call: ContextCall, link: ContextLink): ToolContext {
  const { callId } = call;
  // ctx.signal first, as one shared getter over the call's stop (see SIGNAL), then the rest in order.
  const ctx = {} as Mutable<ToolContext>;
  Object.defineProperty(ctx, STOP, { value: call.stop });
  Object.defineProperty(ctx, 'signal', SIGNAL);
  ctx.env = Object.isFrozen(call.env) ? call.env : Object.freeze(call.env);
  ctx.secrets = call.secrets ? Object.freeze(call.secrets) : NO_SECRETS;
  ctx.cwd = call.cwd;
  ctx.roots = deepFreeze(call.roots);
  ctx.options = deepFreeze(call.options);
  if (call.maxResultChars !== undefined) ctx.maxResultChars = call.maxResultChars;
  ctx.log = (message, level) => link.log(callId, String(message), logLevel(level));
  ctx.progress = (done, total) => link.progress(callId, Number(done), total === undefined ? undefined : Number(total));
  ctx.callTool = async (name, args = {}) => {
    const outcome = await link.callTool(callId, String(name), args);
    if (!outcome.ok) throw codedError(outcome.code, outcome.message);
    // A tool with an outputSchema: its validated object, whatever its text looks like.
    if (outcome.content?.structured) return outcome.content.structured;
    return parseMaybeJson(outcome.text);
  };
  ctx.sandboxTools = () => link.sandboxTools(callId);
  ctx.session = new SessionClient(callId, link);
  if (call.sessionId !== undefined) ctx.sessionId = call.sessionId;
  return ctx;
}
