import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import { describeHandle, messageOf } from './failures.js';
import type { ToolErrorCode } from '../../boundary/errors.js';
import type { CallOutcome } from '../../boundary/outcome.js';
import { CodeErrorCode, type CodeError, type RunCodeOptions } from './types.js';

/** What the tool-call gate needs from the run it belongs to. */
interface ToolCallHooks {
  /** False once the run has an outcome: later calls are refused undispatched. */
  isOpen(): boolean;
  /** Called after a reply was delivered into the sandbox, so the run drives its job queue. */
  onReply(): void;
  /** Runs a call into QuickJS, ending the run if the interpreter itself fails. */
  guard(fn: () => void): void;
  /** Ends the run with an error QuickJS raised while taking a reply (an interrupt, out of memory). */
  fail(error: CodeError): void;
}

/**
 * The script's way out: admits each `tools.*` call against the installed names and the budget,
 * sends it to the host's `callTool`, and settles it with the outcome. The promise the script
 * awaits is the bootstrap's own: a call gets a ticket, and its reply goes in through the
 * bootstrap's `deliver(ticket, ok, text)` as plain strings (the result's text, or a failure's
 * JSON), parsed inside the sandbox. Refused calls are never dispatched or counted; their
 * failure is the call's answer at once.
 */
export class ToolCalls {
  private readonly calls = new AbortController();
  private closed = false;
  private nextTicket = 1;
  /** Calls handed to the host. */
  dispatched = 0;
  /** Dispatched calls whose outcome has not arrived yet. */
  inFlight = 0;

  constructor(
    private readonly context: QuickJSContext,
    /** the bootstrap's `deliver` */
    private readonly deliver: QuickJSHandle,
    private readonly allowed: ReadonlySet<string>,
    private readonly options: Pick<RunCodeOptions, 'callTool' | 'maxToolCalls'>,
    private readonly hooks: ToolCallHooks,
  ) {}

  /** The `call(name, argsJson)` host function: the call's ticket, or the JSON text of why it was refused. */
  call(nameHandle: QuickJSHandle, payloadHandle: QuickJSHandle): QuickJSHandle {
    const context = this.context;
    const name = context.typeof(nameHandle) === 'string' ? context.getString(nameHandle) : '';
    const payload = context.typeof(payloadHandle) === 'string' ? context.getString(payloadHandle) : 'null';
    const refusal = this.admit(name);
    if (refusal !== undefined) return context.newString(JSON.stringify(refusal));
    const ticket = this.nextTicket++;
    void this.dispatch(ticket, name, payload);
    return context.newNumber(ticket);
  }

  /** Aborts calls still in flight; their replies are dropped (the sandbox goes with the run). */
  close(): void {
    this.closed = true;
    this.calls.abort(new Error('The execute_code run ended before this tool call finished.'));
  }

  /** Returns why a call may not go out, or undefined when it may (and counts it). */
  private admit(name: string): { code: string; message: string } | undefined {
    // Jobs left in the batch that reported the outcome may still call out; nobody would read the reply.
    if (!this.hooks.isOpen()) {
      return { code: CodeErrorCode.aborted, message: 'The run has already ended; this call was not made.' };
    }
    if (!this.allowed.has(name)) {
      return { code: CodeErrorCode.unknownTool, message: `No tool named "${name}" is available in this sandbox.` };
    }
    if (this.dispatched >= this.options.maxToolCalls) {
      return {
        code: CodeErrorCode.budgetExceeded,
        message:
          `Tool call budget exhausted: a run may make at most ${this.options.maxToolCalls} tool calls; this call ` +
          `was not made.`,
      };
    }
    this.dispatched += 1;
    return undefined;
  }

  private async dispatch(ticket: number, name: string, payload: string): Promise<void> {
    this.inFlight += 1;
    let outcome: CallOutcome;
    try {
      // JSON.parse defines `__proto__` and `constructor` as plain own keys: nothing in the
      // payload can reach a prototype on the host side.
      const args: unknown = JSON.parse(payload);
      outcome = normalizeOutcome(await this.options.callTool(name, args, { signal: this.calls.signal }));
    } catch (error) {
      outcome = {
        ok: false,
        code: CodeErrorCode.toolFailed,
        message: `The host could not run ${name}: ${messageOf(error)}`,
      };
    } finally {
      this.inFlight -= 1;
    }
    if (this.closed) return;
    this.reply(ticket, outcome);
    this.hooks.onReply();
  }

  private reply(ticket: number, outcome: CallOutcome): void {
    this.hooks.guard(() => {
      const context = this.context;
      // Fresh QuickJS values: the sandbox parses the text with its own JSON, so no host object crosses.
      const ticketHandle = context.newNumber(ticket);
      const text = context.newString(
        outcome.ok ? outcome.text : JSON.stringify({ code: outcome.code, message: outcome.message }),
      );
      try {
        const settled = context.callFunction(
          this.deliver,
          context.undefined,
          ticketHandle,
          outcome.ok ? context.true : context.false,
          text,
        );
        if (settled.error) {
          const error = describeHandle(context, settled.error);
          settled.error.dispose();
          this.hooks.fail(error);
        } else {
          settled.value.dispose();
        }
      } finally {
        ticketHandle.dispose();
        text.dispose();
      }
    });
  }
}

/** Accepts only a well-formed CallOutcome from the host; anything else is a TOOL_FAILED. */
function normalizeOutcome(value: unknown): CallOutcome {
  if (typeof value === 'object' && value !== null) {
    const outcome = value as Record<string, unknown>;
    if (outcome.ok === true && typeof outcome.text === 'string') return { ok: true, text: outcome.text };
    if (outcome.ok === false && typeof outcome.code === 'string' && typeof outcome.message === 'string') {
      // The embedder's code, passed on as reported (RunCodeOptions.callTool).
      return { ok: false, code: outcome.code as ToolErrorCode, message: outcome.message };
    }
  }
  return { ok: false, code: CodeErrorCode.toolFailed, message: 'The host returned a malformed tool outcome.' };
}
