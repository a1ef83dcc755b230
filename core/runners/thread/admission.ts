/**
 * Host-side admission control for a pool of worker threads. A call runs at
 * once when a worker is free; otherwise it waits here, not in Piscina, so the
 * host decides the order: round robin across plugins, and within a plugin
 * across sessions, so one busy plugin or one chatty session cannot starve the
 * others. Each waiting call keeps its own deadline and its caller's cancel.
 * The bounds are `maxQueue` waiting calls per plugin and `maxQueueTotal` across
 * the pool's plugins. A bound is shared fairly between sessions: when it is reached,
 * a call from a session holding fewer waiting calls than the busiest session takes
 * the place of that session's newest waiting call, which is refused instead; only
 * a call from (one of) the busiest sessions is refused outright (queue-full, with a
 * retry hint). So one session's flood is refused while other sessions still get in.
 * Calls without a session share one anonymous session ('').
 */
import { DeadlineSweeper, type Deadline } from '../../../boundary/deadlines.js';
import type { RunnerFailure } from '../../../boundary/runner-failure.js';

/** How often waiting calls' deadlines are checked: a call waiting that long is already late. */
const WAIT_SWEEP_MS = 10;

/** The bounds of one queue. */
interface AdmissionLimits {
  /** calls that run at once (the pool's threads) */
  slots: number;
  /** calls that may wait per plugin */
  maxQueue: number;
  /** calls that may wait in all, across plugins */
  maxQueueTotal: number;
}

/** Who is asking, and how long it may wait. */
interface AdmissionRequest {
  /** the plugin (fairness and the per-plugin bound) */
  key: string;
  /** the session (fairness within a plugin, and its share of the bounds); '' for calls without one */
  session: string;
  /** the call's budget: past it, a call still waiting fails with a timeout */
  waitMs: number;
  signal?: AbortSignal | undefined;
}

/** A granted slot (release it when the call ends), or why none was. */
export type Admitted = { ok: true; release(): void } | { ok: false; failure: RunnerFailure };

interface Waiter {
  grant(): void;
  fail(failure: RunnerFailure): void;
}

/** The newest waiting call of a session, to be refused in favour of another session's call. */
interface Busiest {
  queue: KeyQueue;
  key: string;
  session: string;
  /** its waiting calls in the bound's scope: the plugin's queue, or the whole pool */
  waiting: number;
  scope: 'plugin' | 'pool';
}

/** Waiting calls of one plugin, by session in round-robin order. */
class KeyQueue {
  readonly sessions = new Map<string, Waiter[]>();
  size = 0;

  push(session: string, waiter: Waiter): void {
    const list = this.sessions.get(session);
    if (list) list.push(waiter);
    else this.sessions.set(session, [waiter]);
    this.size++;
  }

  /** The next waiter, rotating its session to the back. */
  shift(): Waiter | undefined {
    for (const [session, list] of this.sessions) {
      const waiter = list.shift();
      this.sessions.delete(session);
      if (list.length) this.sessions.set(session, list);
      if (!waiter) continue;
      this.size--;
      return waiter;
    }
    return undefined;
  }

  /** Waiting calls of `session`. */
  of(session: string): number {
    return this.sessions.get(session)?.length ?? 0;
  }

  /** The session with the most waiting calls, and how many. */
  busiest(): { session: string; waiting: number } | undefined {
    let most: { session: string; waiting: number } | undefined;
    for (const [session, list] of this.sessions)
      if (!most || list.length > most.waiting) most = { session, waiting: list.length };
    return most;
  }

  /** The newest waiting call of `session`, taken out of the queue. */
  pop(session: string): Waiter | undefined {
    const list = this.sessions.get(session);
    const waiter = list?.pop();
    if (!waiter) return undefined;
    if (!list!.length) this.sessions.delete(session);
    this.size--;
    return waiter;
  }

  remove(session: string, waiter: Waiter): boolean {
    const list = this.sessions.get(session);
    const index = list?.indexOf(waiter) ?? -1;
    if (!list || index < 0) return false;
    list.splice(index, 1);
    if (!list.length) this.sessions.delete(session);
    this.size--;
    return true;
  }
}

/** A fair, bounded queue in front of `slots` workers. */
export class Admission {
  private running = 0;
  private waiting = 0;
  private readonly keys = new Map<string, KeyQueue>();
  private readonly deadlines = new DeadlineSweeper(WAIT_SWEEP_MS);
  /** moving average of how long a slot is held, for the retry hint */
  private serviceMs = 1;

  constructor(private readonly limits: AdmissionLimits) {}

  /** Calls running, and calls waiting. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting };
  }

  /** Waiting calls of `key`. */
  waitingFor(key: string): number {
    return this.keys.get(key)?.size ?? 0;
  }

  /**
   * Takes a slot now, or waits for one in turn; refuses past the bounds, or makes room by refusing the busiest
   * session's newest call.
   */
  acquire(request: AdmissionRequest): Admitted | Promise<Admitted> {
    if (request.signal?.aborted) return { ok: false, failure: { kind: 'cancelled' } };
    if (this.running < this.limits.slots && this.waiting === 0) return this.grant();
    const queue = this.keys.get(request.key);
    const queued = queue?.size ?? 0;
    if (
      queued >= this.limits.maxQueue &&
      !this.makeRoom(request, queue && this.busiestOf(request.key, queue), this.limits.maxQueue, queued)
    ) {
      return this.full(this.limits.maxQueue, queued);
    }
    if (
      this.waiting >= this.limits.maxQueueTotal &&
      !this.makeRoom(request, this.busiestOverall(), this.limits.maxQueueTotal, this.waiting)
    ) {
      return this.full(this.limits.maxQueueTotal, this.waiting);
    }
    return this.enqueue(request);
  }

  /**
   * Refuses the newest waiting call of the busiest session in favour of `request`, when the
   * request's session holds fewer waiting calls there (by more than one, so two sessions with
   * equal shares do not trade places); whether room was made.
   */
  private makeRoom(request: AdmissionRequest, busiest: Busiest | undefined, limit: number, queued: number): boolean {
    if (!busiest || busiest.session === request.session) return false;
    const mine = busiest.scope === 'pool' ? this.waitingOf(request.session) : busiest.queue.of(request.session);
    if (mine + 1 >= busiest.waiting) return false;
    const waiter = busiest.queue.pop(busiest.session);
    if (!waiter) return false;
    this.waiting--;
    if (!busiest.queue.size) this.keys.delete(busiest.key);
    waiter.fail(this.queueFull(limit, queued));
    return true;
  }

  private busiestOf(key: string, queue: KeyQueue): Busiest | undefined {
    const most = queue.busiest();
    return most && { queue, key, ...most, scope: 'plugin' };
  }

  /** The busiest session across plugins, with a plugin queue holding some of its calls. */
  private busiestOverall(): Busiest | undefined {
    const totals = new Map<string, number>();
    let most: Busiest | undefined;
    for (const [key, queue] of this.keys) {
      for (const [session, list] of queue.sessions) {
        const total = (totals.get(session) ?? 0) + list.length;
        totals.set(session, total);
        if (!most || total > most.waiting) most = { queue, key, session, waiting: total, scope: 'pool' };
      }
    }
    return most;
  }

  /** Waiting calls of `session` across plugins. */
  private waitingOf(session: string): number {
    let total = 0;
    for (const queue of this.keys.values()) total += queue.of(session);
    return total;
  }

  /** Fails every waiting call (the pool is closing). */
  close(failure: RunnerFailure): void {
    for (const queue of this.keys.values()) for (let w = queue.shift(); w; w = queue.shift()) w.fail(failure);
    this.keys.clear();
    this.waiting = 0;
    this.deadlines.stop();
  }

  private enqueue(request: AdmissionRequest): Promise<Admitted> {
    return new Promise<Admitted>((resolve) => {
      let deadline: Deadline | undefined;
      const onAbort = () => this.drop(request, waiter, { kind: 'cancelled' });
      const settle = (admitted: Admitted) => {
        if (deadline) this.deadlines.release(deadline);
        request.signal?.removeEventListener('abort', onAbort);
        resolve(admitted);
      };
      const waiter: Waiter = { grant: () => settle(this.grant()), fail: (failure) => settle({ ok: false, failure }) };
      let queue = this.keys.get(request.key);
      if (!queue) this.keys.set(request.key, (queue = new KeyQueue()));
      queue.push(request.session, waiter);
      this.waiting++;
      deadline = this.deadlines.start(request.waitMs);
      deadline.once('abort', () =>
        this.drop(request, waiter, { kind: 'timeout', timeoutMs: request.waitMs, waiting: true }),
      );
      request.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private drop(request: AdmissionRequest, waiter: Waiter, failure: RunnerFailure): void {
    const queue = this.keys.get(request.key);
    if (!queue?.remove(request.session, waiter)) return;
    this.waiting--;
    if (!queue.size) this.keys.delete(request.key);
    waiter.fail(failure);
  }

  private grant(): Admitted {
    this.running++;
    const started = performance.now();
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.running--;
        this.serviceMs += (performance.now() - started - this.serviceMs) / 16;
        this.next();
      },
    };
  }

  /** Hands free slots to waiters, one plugin at a time in rotation. */
  private next(): void {
    while (this.running < this.limits.slots && this.waiting > 0) {
      const [key, queue] = this.keys.entries().next().value as [string, KeyQueue];
      const waiter = queue.shift();
      this.keys.delete(key);
      if (queue.size) this.keys.set(key, queue);
      if (!waiter) continue;
      this.waiting--;
      waiter.grant();
    }
  }

  private full(limit: number, queued: number): Admitted {
    return { ok: false, failure: this.queueFull(limit, queued) };
  }

  private queueFull(limit: number, queued: number): RunnerFailure {
    // Roughly when the queue ahead will have drained.
    const retryAfterMs = Math.max(1, Math.ceil(((queued + 1) * this.serviceMs) / this.limits.slots));
    return { kind: 'queue-full', limit, retryAfterMs };
  }
}
