import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from 'quickjs-emscripten';
import { messageOf } from './failures.js';
import { CodeErrorCode, type RunCodeOptions, type ToolCallOutcome } from './types.js';

/** What the tool-call gate needs from the run it belongs to. */
export interface ToolCallHooks {
  /** False once the run has an outcome: later calls are refused undispatched. */
  isOpen(): boolean;
  /** Called after a reply was delivered into the sandbox, so the run drives its job queue. */
  onReply(): void;
  /** Runs a call into QuickJS, ending the run if the interpreter itself fails. */
  guard(fn: () => void): void;
}

/**
 * The script's way out: admits each `tools.*` call against the installed names and the budget,
 * sends it to the host's `callTool`, and resolves the script's promise with the outcome as JSON
 * text (parsed back inside the sandbox). Refused calls are never dispatched or counted.
 */
export class ToolCalls {
  private readonly calls = new AbortController();
  private readonly pending = new Set<QuickJSDeferredPromise>();
  private closed = false;
  /** Calls handed to the host. */
  dispatched = 0;
  /** Dispatched calls whose outcome has not arrived yet. */
  inFlight = 0;

  constructor(
    private readonly context: QuickJSContext,
    private readonly allowed: ReadonlySet<string>,
    private readonly options: Pick<RunCodeOptions, 'callTool' | 'maxToolCalls'>,
    private readonly hooks: ToolCallHooks,
  ) {}

  /** The `call(name, argsJson)` host function: returns a QuickJS promise for the reply text. */
  call(nameHandle: QuickJSHandle, payloadHandle: QuickJSHandle): QuickJSHandle {
    const context = this.context;
    const name = context.typeof(nameHandle) === 'string' ? context.getString(nameHandle) : '';
    const payload = context.typeof(payloadHandle) === 'string' ? context.getString(payloadHandle) : 'null';
    const deferred = context.newPromise();
    this.pending.add(deferred);
    const refusal = this.admit(name);
    if (refusal !== undefined) this.reply(deferred, refusal);
    else void this.dispatch(name, payload, deferred);
    return deferred.handle;
  }

  /** Aborts calls still in flight and frees the promises the script was waiting on. */
  close(): void {
    this.closed = true;
    this.calls.abort(new Error('The execute_code run ended before this tool call finished.'));
    for (const deferred of this.pending) deferred.dispose();
    this.pending.clear();
  }

  /** Returns why a call may not go out, or undefined when it may (and counts it). */
  private admit(name: string): ToolCallOutcome | undefined {
    // Jobs left in the batch that reported the outcome may still call out; nobody would read the reply.
    if (!this.hooks.isOpen()) {
      return { ok: false, code: CodeErrorCode.aborted, message: 'The run has already ended; this call was not made.' };
    }
    if (!this.allowed.has(name)) {
      return { ok: false, code: CodeErrorCode.unknownTool, message: `No tool named "${name}" is available in this sandbox.` };
    }
    if (this.dispatched >= this.options.maxToolCalls) {
      return {
        ok: false,
        code: CodeErrorCode.budgetExceeded,
        message: `Tool call budget exhausted: a run may make at most ${this.options.maxToolCalls} tool calls; this call was not made.`,
      };
    }
    this.dispatched += 1;
    return undefined;
  }

  private async dispatch(name: string, payload: string, deferred: QuickJSDeferredPromise): Promise<void> {
    this.inFlight += 1;
    let outcome: ToolCallOutcome;
    try {
      // JSON.parse defines `__proto__` and `constructor` as plain own keys: nothing in the
      // payload can reach a prototype on the host side.
      const args: unknown = JSON.parse(payload);
      outcome = normalizeOutcome(await this.options.callTool(name, args, { signal: this.calls.signal }));
    } catch (error) {
      outcome = { ok: false, code: CodeErrorCode.toolFailed, message: `The host could not run ${name}: ${messageOf(error)}` };
    } finally {
      this.inFlight -= 1;
    }
    if (this.closed) return;
    this.reply(deferred, outcome);
    this.hooks.onReply();
  }

  private reply(deferred: QuickJSDeferredPromise, outcome: ToolCallOutcome): void {
    this.hooks.guard(() => {
      // A fresh QuickJS string: the sandbox parses it with its own JSON, so no host object crosses.
      const text = this.context.newString(JSON.stringify(outcome));
      try {
        deferred.resolve(text);
      } finally {
        text.dispose();
      }
    });
    this.pending.delete(deferred);
  }
}

/** Accepts only a well-formed ToolCallOutcome from the host; anything else is a TOOL_FAILED. */
function normalizeOutcome(value: unknown): ToolCallOutcome {
  if (typeof value === 'object' && value !== null) {
    const outcome = value as Record<string, unknown>;
    if (outcome.ok === true && typeof outcome.text === 'string') return { ok: true, text: outcome.text };
    if (outcome.ok === false && typeof outcome.code === 'string' && typeof outcome.message === 'string') {
      return { ok: false, code: outcome.code, message: outcome.message };
    }
  }
  return { ok: false, code: CodeErrorCode.toolFailed, message: 'The host returned a malformed tool outcome.' };
}
