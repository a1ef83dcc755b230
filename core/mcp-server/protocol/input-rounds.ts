/**
 * Calls that wait for the client's user, across `input_required` rounds.
 *
 * A `tools/call` that needs an answer mid-call (approval, an MCP server's
 * elicitation forwarded downstream) cannot push a request to the client on
 * MCP 2026-07-28: the handler returns `input_required` with the questions,
 * the client answers and retries the call, and the handler runs again. The
 * call itself keeps running in between (it may be half way through a nested
 * call), so it is held here, keyed by an unguessable token that travels as
 * the round's `requestState`; the retry finds it, hands over the answers and
 * waits for the next question or the result. On 2025-era connections the
 * SDK's shim turns the same rounds into real `elicitation/create` requests,
 * so one code path serves both eras.
 *
 * A held call belongs to the session, tool and identity that started it (a
 * token from another session, or presented by another caller of `serve.auth`,
 * finds nothing), is cancelled when nobody comes back for it
 * within `idleMs`, and all of a session's are cancelled when it closes.
 */
import { randomBytes } from 'node:crypto';
import {
  inputRequired,
  type CallToolResult,
  type InputRequest,
  type InputRequiredResult,
  type LoggingLevel,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { systemClock, timers, type Timers } from '../../state/clock.js';
import type { Clock } from '../../state/clock.js';

/** Whether `a` and `b` are the same owner. */
export function sameOwner(a: Owner, b: Owner): boolean {
  return a.sessionId === b.sessionId && a.tool === b.tool && a.caller === b.caller;
}

/** One question a running call put to the client. */
interface Question {
  key: string;
  request: InputRequest;
  answer(response: unknown): void;
}

/**
 * Who may resume a held call: the same session, for the same tool, as the same identity (core/http/caller.ts's
 * `ownerKey`).
 */
interface Owner {
  sessionId: string;
  tool: string;
  caller: string;
}

/**
 * The round a held call reports to: progress and log lines go to the request
 * of the round that is waiting now (each retry is a new request), and only
 * while one is.
 */
class Relay {
  private ctx: ServerContext | undefined;
  private token: string | number | undefined;
  private last = -Infinity;

  attach(ctx: ServerContext, token: string | number | undefined): void {
    this.ctx = ctx;
    // The token of the call's first request names its progress stream for every round.
    this.token ??= token;
  }

  detach(): void {
    this.ctx = undefined;
  }

  /** Relays `ctx.progress` as `notifications/progress`, only increasing (the spec requires it). */
  progress(done: number, total?: number): void {
    if (!this.ctx || this.token === undefined || !(done > this.last)) return;
    this.last = done;
    const params =
      total === undefined
        ? { progressToken: this.token, progress: done }
        : { progressToken: this.token, progress: done, total };
    // A notification that cannot be delivered (client gone) must not fail the call.
    this.ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => {});
  }

  /** Relays `ctx.log` as `notifications/message`, filtered by the level the client asked for (the SDK filters). */
  log(tool: string, message: string, level: LoggingLevel = 'info'): void {
    this.ctx?.mcpReq.log(level, message, tool).catch(() => {});
  }
}

/** A call running on behalf of the client, possibly waiting for answers. */
export class HeldCall {
  #token: string | undefined;
  /** the unguessable name of the call while it is held (drawn when first needed: most calls are never held) */
  get token(): string {
    this.#token ??= randomBytes(24).toString('base64url');
    return this.#token;
  }
  /** where its progress and log lines go */
  readonly relay = new Relay();
  private readonly questions: Question[] = [];
  private wake: (() => void) | undefined;
  private serial = 0;
  private readonly controller = new AbortController();
  private settled = false;
  result!: Promise<CallToolResult>;
  /** when the last round ended: a held call nobody resumes is cancelled */
  lastSeen: number;
  /** whether a round is waiting on this call now (it is not abandoned then) */
  waiting = false;

  constructor(
    readonly owner: Owner,
    private readonly clock: Clock = systemClock,
  ) {
    this.lastSeen = clock.now();
  }

  /** aborted when the client cancels or the call is abandoned */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Runs the call; `ask` puts a question to the client and resolves with its answer (the bare response object). */
  start(
    run: (ask: (request: InputRequest, signal?: AbortSignal) => Promise<unknown>) => Promise<CallToolResult>,
  ): void {
    this.result = run((request, signal) => this.ask(request, signal)).finally(() => {
      this.settled = true;
      this.wake?.();
    });
  }

  private ask(request: InputRequest, signal?: AbortSignal): Promise<unknown> {
    return new Promise((resolve) => {
      const question: Question = { key: `q${++this.serial}`, request, answer: resolve };
      this.questions.push(question);
      // A question whose asker gave up (approval timed out) is withdrawn: its answer reads as a dismissal.
      signal?.addEventListener(
        'abort',
        () => {
          const at = this.questions.indexOf(question);
          if (at >= 0) this.questions.splice(at, 1);
          resolve({ action: 'cancel' });
        },
        { once: true },
      );
      this.wake?.();
    });
  }

  /** Hands the round's answers to the questions they answer; a question left unanswered is asked again. */
  deliver(responses: Record<string, unknown> | undefined): void {
    if (!responses) return;
    for (const question of [...this.questions]) {
      if (!(question.key in responses)) continue;
      this.questions.splice(this.questions.indexOf(question), 1);
      question.answer(responses[question.key]);
    }
  }

  /**
   * Waits for the call's result, or for questions to put to the client (then the
   * round's answer is `input_required` carrying them and this call's token).
   * `signal` is the round's own request: the client cancelling it cancels the call.
   */
  async next(signal: AbortSignal): Promise<CallToolResult | InputRequiredResult> {
    const onAbort = () => this.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    this.waiting = true;
    try {
      while (!this.settled && this.questions.length === 0) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.waiting = false;
      this.lastSeen = this.clock.now();
    }
    if (this.settled) return this.result;
    const inputRequests = Object.fromEntries(this.questions.map((question) => [question.key, question.request]));
    return inputRequired({ inputRequests, requestState: this.token });
  }

  /** Cancels the call: questions read as dismissed, the call's signal aborts. */
  cancel(): void {
    for (const question of this.questions.splice(0)) question.answer({ action: 'cancel' });
    this.controller.abort();
  }

  get done(): boolean {
    return this.settled;
  }
}

/** The held calls of one session (or of a whole HTTP endpoint, told apart by owner). */
export class InputRounds {
  private readonly held = new Map<string, HeldCall>();
  private stopSweeping: (() => void) | undefined;
  private readonly timers: Timers;

  /**
   * @param idleMs a held call with no round for this long is cancelled (default one hour, past any approval timeout)
   * @param clock what idleness is measured by, and the sweep's timer (default the real one)
   */
  constructor(
    readonly idleMs = 60 * 60 * 1000,
    readonly clock: Clock = systemClock,
  ) {
    this.timers = timers(clock);
  }

  /** The call `token` names, if `owner` started it and it is still held. */
  resume(token: unknown, owner: Owner): HeldCall | undefined {
    if (typeof token !== 'string') return undefined;
    const call = this.held.get(token);
    if (!call || !sameOwner(call.owner, owner)) return undefined;
    return call;
  }

  /** Keeps `call` until its result is handed out. */
  hold(call: HeldCall): void {
    this.held.set(call.token, call);
    this.stopSweeping ??= this.timers.every(Math.min(60_000, this.idleMs), () => this.sweep(), { unref: true });
  }

  /** Forgets `call` (its result was handed out). */
  release(call: HeldCall): void {
    this.held.delete(call.token);
    if (this.held.size === 0) this.stop();
  }

  /** held calls now */
  get size(): number {
    return this.held.size;
  }

  /** Cancels every held call (the session closed). */
  close(): void {
    for (const call of this.held.values()) call.cancel();
    this.held.clear();
    this.stop();
  }

  private sweep(): void {
    const cutoff = this.clock.now() - this.idleMs;
    for (const [token, call] of this.held) {
      if (call.waiting || call.lastSeen > cutoff) continue;
      call.cancel();
      this.held.delete(token);
    }
    if (this.held.size === 0) this.stop();
  }

  private stop(): void {
    this.stopSweeping?.();
    this.stopSweeping = undefined;
  }
}
