/**
 * Hooks around every call (`host.use({ beforeCall, afterCall })`): before the
 * tool runs a hook may block the call or replace its arguments (validated
 * again); after it runs a hook sees the outcome and its duration and may
 * replace it. Hooks run on the host thread, in the order they were added. A
 * hook that throws fails the call with HOOK_FAILED; it never reaches the caller
 * as a throw and never takes the host down.
 */
import { performance } from 'node:perf_hooks';
import { failure, type CallOutcome } from '../../boundary/outcome.js';
import { capText } from '../../boundary/normalize.js';
import { TOOL_ERROR_CODES, type ToolErrorCode } from '../../boundary/errors.js';
import type { AfterCallResult, BeforeCallResult, ToolCall, ToolHooks } from './public-types.js';

export type { AfterCallResult, BeforeCallResult, CallResult, ToolCall, ToolHooks } from './public-types.js';

const NONE: readonly ToolHooks[] = Object.freeze([]);

/** The hooks of one host or view: its own, after its parent's. */
export class HookList {
  private readonly own: ToolHooks[] = [];
  private cached: readonly ToolHooks[] | undefined = NONE;
  private parentSeen: readonly ToolHooks[] | undefined;

  constructor(private readonly parent?: HookList) {}

  /** Adds hooks; returns the function that removes them. */
  add(hooks: ToolHooks): () => void {
    if (typeof hooks !== 'object' || hooks === null)
      throw new TypeError('use() expects an object with beforeCall and/or afterCall');
    for (const key of ['beforeCall', 'afterCall'] as const) {
      if (hooks[key] !== undefined && typeof hooks[key] !== 'function')
        throw new TypeError(`use(): ${key} must be a function`);
    }
    this.own.push(hooks);
    this.cached = undefined;
    return () => {
      const index = this.own.indexOf(hooks);
      if (index >= 0) this.own.splice(index, 1);
      this.cached = undefined;
    };
  }

  /** Every hook that applies, parent's first; the same frozen array while nothing changed. */
  list(): readonly ToolHooks[] {
    const inherited = this.parent?.list() ?? NONE;
    if (this.cached === undefined || inherited !== this.parentSeen) {
      this.parentSeen = inherited;
      this.cached = !this.own.length ? inherited : Object.freeze([...inherited, ...this.own]);
    }
    return this.cached;
  }
}

/**
 * Whether a hook returned a promise; a synchronous hook's value is used without awaiting, which costs no microtask
 * turn.
 */
function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function label(hooks: ToolHooks, index: number): string {
  return hooks.name ? `'${hooks.name}'` : `#${index + 1}`;
}

function hookFailed(hooks: ToolHooks, index: number, phase: string, error: unknown): CallOutcome {
  const message = error instanceof Error ? error.message : String(error);
  return failure('HOOK_FAILED', `hook ${label(hooks, index)} failed ${phase}: ${message}`);
}

/**
 * Runs every beforeCall in order. Returns the arguments to run with, or the
 * outcome that ends the call (TOOL_BLOCKED, HOOK_FAILED, or INVALID_ARGUMENTS
 * when replaced arguments do not pass the tool's schema).
 */
async function runBeforeCall(
  hooks: readonly ToolHooks[],
  call: ToolCall,
  validate: (args: unknown) => CallOutcome | undefined,
): Promise<{ ok: true; args: unknown } | { ok: false; outcome: CallOutcome }> {
  for (const [index, hook] of hooks.entries()) {
    if (!hook.beforeCall) continue;
    let verdict: BeforeCallResult;
    try {
      const raw = hook.beforeCall(call);
      verdict = isPromise(raw) ? await raw : raw;
    } catch (error) {
      return { ok: false, outcome: hookFailed(hook, index, `before ${call.tool}`, error) };
    }
    if (verdict === undefined || verdict === null) continue;
    if (typeof verdict !== 'object')
      return {
        ok: false,
        outcome: hookFailed(
          hook,
          index,
          `before ${call.tool}`,
          `returned ${typeof verdict}; return { block } or { args }`,
        ),
      };
    if ('block' in verdict) {
      const reason = String(verdict.block || 'blocked by a hook');
      return { ok: false, outcome: failure('TOOL_BLOCKED', `${call.tool} was blocked: ${reason}`) };
    }
    if ('args' in verdict) {
      const invalid = validate(verdict.args);
      if (invalid)
        return {
          ok: false,
          outcome: invalid.ok
            ? invalid
            : failure(invalid.code, `arguments replaced by hook ${label(hook, index)}: ${invalid.message}`),
        };
      call.args = verdict.args;
    }
  }
  return { ok: true, args: call.args };
}

/** Runs every afterCall in order, each seeing the previous one's outcome; a throw becomes HOOK_FAILED. */
async function runAfterCall(
  hooks: readonly ToolHooks[],
  call: ToolCall,
  outcome: CallOutcome,
  durationMs: number,
): Promise<CallOutcome> {
  let current = outcome;
  for (const [index, hook] of hooks.entries()) {
    if (!hook.afterCall) continue;
    let replaced: AfterCallResult;
    try {
      const raw = hook.afterCall(call, { outcome: current, code: current.ok ? 'OK' : current.code, durationMs });
      replaced = isPromise(raw) ? await raw : raw;
    } catch (error) {
      return hookFailed(hook, index, `after ${call.tool}`, error);
    }
    if (replaced === undefined || replaced === null) continue;
    if (typeof replaced === 'string') current = { ok: true, text: replaced };
    else if (isOutcome(replaced)) current = replaced;
    else
      return hookFailed(
        hook,
        index,
        `after ${call.tool}`,
        'returned neither a string nor an outcome ({ ok: true, text } or { ok: false, code, message } with a ' +
          'tool error code)',
      );
  }
  return current;
}

function isOutcome(value: unknown): value is CallOutcome {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.ok === true
    ? typeof v.text === 'string'
    : v.ok === false && TOOL_ERROR_CODES.includes(v.code as ToolErrorCode) && typeof v.message === 'string';
}

/** What `withHooks` needs from dispatch for one call. */
interface HookedRun {
  /** validates replaced arguments against the tool's schema */
  validate(args: unknown): CallOutcome | undefined;
  /** runs the tool with these arguments */
  run(args: unknown): Promise<CallOutcome>;
  maxResultChars: number;
}

/** beforeCall hooks, the run, afterCall hooks, then the cap again (a hook may have made the text longer). */
export async function withHooks(hooks: readonly ToolHooks[], call: ToolCall, step: HookedRun): Promise<CallOutcome> {
  const before = await runBeforeCall(hooks, call, step.validate);
  const started = performance.now();
  const outcome = before.ok ? await step.run(before.args) : before.outcome;
  const after = await runAfterCall(hooks, call, outcome, performance.now() - started);
  return after.ok ? { ok: true, text: capText(after.text, step.maxResultChars) } : after;
}
