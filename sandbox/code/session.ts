import type { QuickJSHandle } from 'quickjs-emscripten';
import { SCRIPT_FILENAME, wrapScript } from './bootstrap.js';
import { createSandboxContext, disposeSandbox, type SandboxContext } from './context.js';
import { releaseEngine, type Engine } from './engine.js';
import { abortedResult, describeHandle, messageOf, parseError } from './failures.js';
import { OutputBuffer } from './output.js';
import { ToolCalls } from './tool-calls.js';
import { CodeErrorCode, type CodeError, type CodeResult, type RunCodeOptions } from './types.js';

/** Jobs run per `executePendingJobs` call, so deadline and abort are checked between batches. */
const JOB_BATCH = 1000;
/** Console levels whose lines get a prefix, so the model can tell failures from plain logs. */
const PREFIXED_LEVELS = new Set(['warn', 'error']);

let teardownFailures = 0;

/**
 * How many runs on this thread failed to free their QuickJS runtime. Upstream bugs make this
 * non-zero after out-of-memory errors; for ordinary scripts a rise means a leaked handle here.
 */
export function teardownFailureCount(): number {
  return teardownFailures;
}

/** How a run ended, before it is turned into a CodeResult. */
type Ending =
  | { kind: 'settled'; ok: true; json: string }
  | { kind: 'settled'; ok: false; error: CodeError; thrownNull?: boolean }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  | { kind: 'stalled' }
  | { kind: 'crashed'; error: unknown };

/**
 * One execution of one script in its own QuickJS runtime: installs the sandbox, drives its
 * job queue while tool calls go out to the host, enforces the deadline, the abort signal and
 * the call budget, and always tears the runtime down.
 */
export class CodeSession {
  private readonly output: OutputBuffer;
  private readonly deadline: number;
  private sandbox: SandboxContext | undefined;
  private toolCalls: ToolCalls | undefined;
  private ending: Ending | undefined;
  private interrupted = false;
  private deadlinePassed = false;
  private wakeUp: (() => void) | undefined;
  private dirty = false;

  constructor(
    private readonly engine: Engine,
    private readonly options: RunCodeOptions,
    private readonly startedAt: number,
  ) {
    this.output = new OutputBuffer(options.maxOutputChars);
    this.deadline = startedAt + options.timeoutMs;
  }

  /** Runs the script to its end and returns the JSON-serialisable result. */
  async run(): Promise<CodeResult> {
    // Node may fire a timer a fraction of a millisecond before performance.now() reaches the
    // deadline, so the timer itself marks the deadline as passed.
    const timer = setTimeout(
      () => {
        this.deadlinePassed = true;
        this.wake();
      },
      Math.max(0, this.deadline - performance.now()),
    );
    const onAbort = (): void => this.wake();
    this.options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      this.guard(() => this.begin());
      await this.drive();
    } finally {
      clearTimeout(timer);
      this.options.signal?.removeEventListener('abort', onAbort);
      this.teardown();
    }
    return this.result();
  }

  private begin(): void {
    this.sandbox = createSandboxContext(
      this.engine,
      this.options.tools,
      this.options.memoryMb,
      {
        call: (name, payload) => this.requireToolCalls().call(name, payload),
        print: (level, text) => this.hostPrint(level, text),
        done: (ok, json) => this.hostDone(ok, json),
      },
      () => this.shouldInterrupt(),
      this.options.searchTool,
    );
    const { context, start, deliver, installed, searchTool } = this.sandbox;
    this.toolCalls = new ToolCalls(
      context,
      deliver,
      new Set(searchTool ? [...installed, searchTool] : installed),
      this.options,
      {
        isOpen: () => this.ending === undefined && !this.interrupted,
        onReply: () => this.wake(),
        guard: (fn) => void this.guard(fn),
        // As an error out of a job: an interrupt becomes the timeout or abort, out of memory is named.
        fail: (error) => this.end({ kind: 'settled', ok: false, error }),
      },
    );
    const compiled = context.evalCode(wrapScript(this.options.code), SCRIPT_FILENAME, { type: 'global' });
    if (compiled.error) {
      this.end({ kind: 'settled', ok: false, error: describeHandle(context, compiled.error) });
      compiled.error.dispose();
      return;
    }
    const started = context.callFunction(start, context.undefined, compiled.value);
    compiled.value.dispose();
    // `start` is async and reports through hostDone; a synchronous failure here is the engine's own.
    if (started.error) {
      this.end({ kind: 'settled', ok: false, error: describeHandle(context, started.error) });
      started.error.dispose();
    } else {
      started.value.dispose();
    }
  }

  private async drive(): Promise<void> {
    for (;;) {
      this.pumpJobs();
      if (this.checkEnded()) return;
      const runtime = this.sandbox?.runtime;
      if (runtime === undefined) return;
      if (runtime.hasPendingJob()) continue;
      if ((this.toolCalls?.inFlight ?? 0) === 0) return this.end({ kind: 'stalled' });
      await this.nextWake();
    }
  }

  private pumpJobs(): void {
    const runtime = this.sandbox?.runtime;
    while (runtime !== undefined && !this.checkEnded() && runtime.hasPendingJob()) {
      const jobs = this.guard(() => runtime.executePendingJobs(JOB_BATCH));
      if (jobs === undefined) return;
      if (jobs.error) {
        // Promise jobs catch script errors into rejections, so an error here is the engine's
        // (an interrupt or out-of-memory inside a job): it ends the run.
        const error = describeHandle(jobs.error.context, jobs.error);
        jobs.error.dispose();
        this.end({ kind: 'settled', ok: false, error });
        return;
      }
      jobs.dispose();
    }
  }

  /** Records the first ending and reports whether the run is over. */
  private checkEnded(): boolean {
    if (this.ending !== undefined) return true;
    if (this.options.signal?.aborted) this.end({ kind: 'aborted' });
    else if (this.interrupted || this.deadlinePassed || performance.now() >= this.deadline)
      this.end({ kind: 'timeout' });
    return this.ending !== undefined;
  }

  private end(ending: Ending): void {
    this.ending ??= ending;
  }

  private shouldInterrupt(): boolean {
    if (this.options.signal?.aborted || this.deadlinePassed || performance.now() >= this.deadline)
      this.interrupted = true;
    return this.interrupted;
  }

  private hostPrint(levelHandle: QuickJSHandle, textHandle: QuickJSHandle): void {
    const context = this.requireSandbox().context;
    const level = context.getString(levelHandle);
    const text = context.getString(textHandle);
    this.output.writeLine(PREFIXED_LEVELS.has(level) ? `[${level}] ${text}` : text);
  }

  private hostDone(okHandle: QuickJSHandle, jsonHandle: QuickJSHandle): void {
    const context = this.requireSandbox().context;
    const ok = context.typeof(okHandle) === 'boolean' && context.dump(okHandle) === true;
    const json = context.getString(jsonHandle);
    if (ok) return this.end({ kind: 'settled', ok: true, json });
    this.end({ kind: 'settled', ok: false, ...parseError(json) });
  }

  // The bootstrap only calls back once install has returned, so these always exist by then.
  private requireSandbox(): SandboxContext {
    if (this.sandbox === undefined) throw new Error('sandbox context used before it was created');
    return this.sandbox;
  }

  private requireToolCalls(): ToolCalls {
    if (this.toolCalls === undefined) throw new Error('tool call before the sandbox was installed');
    return this.toolCalls;
  }

  /**
   * Runs a call into QuickJS. A host exception out of it (V8's own stack overflow inside the
   * interpreter, an Emscripten abort) means the instance can no longer be trusted: the run ends.
   */
  private guard<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (error) {
      this.end({ kind: 'crashed', error });
      return undefined;
    }
  }

  private nextWake(): Promise<void> {
    if (this.dirty) {
      this.dirty = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.wakeUp = resolve;
    });
  }

  private wake(): void {
    const wakeUp = this.wakeUp;
    this.wakeUp = undefined;
    if (wakeUp === undefined) this.dirty = true;
    else wakeUp();
  }

  private teardown(): void {
    this.toolCalls?.close();
    const clean = this.sandbox === undefined || disposeSandbox(this.sandbox);
    if (!clean) teardownFailures += 1;
    releaseEngine(this.engine, clean && this.finalEnding().kind !== 'crashed' && !this.engine.heapExhausted);
  }

  private result(): CodeResult {
    const base = {
      output: this.output.toString(),
      toolCalls: this.toolCalls?.dispatched ?? 0,
      durationMs: Math.round(performance.now() - this.startedAt),
    };
    const ending = this.finalEnding();
    switch (ending.kind) {
      case 'settled':
        if (ending.ok) return { status: 'ok', result: parseResult(ending.json), ...base };
        return {
          status: 'error',
          result: null,
          ...base,
          error: this.classify(ending.error, ending.thrownNull === true),
        };
      case 'timeout':
        return {
          status: 'timeout',
          result: null,
          ...base,
          error: {
            name: 'TimeoutError',
            message:
              `The script exceeded the time limit of ${this.options.timeoutMs} ms` +
              `${(this.toolCalls?.inFlight ?? 0) > 0 ? ' while a tool call was still pending' : ''}.`,
            code: CodeErrorCode.timeout,
          },
        };
      case 'aborted':
        return abortedResult(this.options.signal?.reason, base);
      case 'stalled':
        // Out of memory while reporting its outcome, a script looks stalled: name the real cause.
        return {
          status: 'error',
          result: null,
          ...base,
          error: this.classify(
            {
              name: 'Error',
              message: 'The script is waiting on a promise that nothing can settle (no tool call or job is pending).',
              code: CodeErrorCode.stalled,
            },
            true,
          ),
        };
      case 'crashed':
        return {
          status: 'error',
          result: null,
          ...base,
          error: {
            name: 'SandboxCrash',
            message:
              `The interpreter failed and was discarded: ${messageOf(ending.error)} (deeply nested code or data ` +
              `can exhaust the native stack).`,
            code: CodeErrorCode.crashed,
          },
        };
    }
  }

  /**
   * Once the interrupt handler has fired, whatever the script reported afterwards is an
   * "interrupted" error, not its real outcome: the deadline or the abort is the ending.
   */
  private finalEnding(): Ending {
    if (this.interrupted) return this.options.signal?.aborted ? { kind: 'aborted' } : { kind: 'timeout' };
    return this.ending ?? { kind: 'stalled' };
  }

  /**
   * Names an out-of-memory failure. QuickJS reports one as InternalError("out of memory") (its
   * text is the only signal it gives) or, when the heap hit the hard cap and even that error
   * could not be allocated, by throwing `null`; a `null` only counts once the cap was hit.
   */
  private classify(error: CodeError, withoutError: boolean): CodeError {
    const engineOom = error.name === 'InternalError' && error.message === 'out of memory';
    if (engineOom || (withoutError && this.engine.heapExhausted)) {
      return {
        name: 'OutOfMemoryError',
        message: `The script ran out of memory (limit ${this.options.memoryMb} MB).`,
        code: CodeErrorCode.outOfMemory,
      };
    }
    return error;
  }
}

/** The bootstrap encodes results with JSON.stringify; null covers anything unreadable. */
function parseResult(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}
