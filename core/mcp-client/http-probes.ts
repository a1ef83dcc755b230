/**
 * The probes of an HTTP server's connection (probe.ts says what counts as an answer): a `ping`
 * every probe interval while connected, and a small request to its URL every probe interval
 * while it is unreachable.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Timers, TimerHandle } from '../state/clock.js';
import type { ResolvedServer } from './config.js';
import { probeFailure, type ProbeFailure } from './connection-failure.js';
import { answers, probeDelay } from './probe.js';

/** One HTTP server's probe timer, and the requests to its URL while it is unreachable. */
export class HttpProbes {
  /** the next probe of the connected server */
  private timer: TimerHandle | undefined;
  /** the next request to the URL of the unreachable server */
  private waiting: TimerHandle | undefined;
  /** aborts the probe of an unreachable server's URL when the host closes */
  private readonly closing = new AbortController();
  private closed = false;

  /** `timeoutMs`: how long a probe waits for its answer (limits.loadTimeoutMs). */
  constructor(
    private readonly http: NonNullable<ResolvedServer['http']>,
    private readonly timeoutMs: number,
    private readonly timers: Timers,
  ) {}

  /** Runs `probe` one probe interval (with jitter) from now, in place of the one scheduled. */
  schedule(probe: () => void): void {
    this.timers.cancel(this.timer);
    this.timer = this.timers.after(probeDelay(this.http.probeIntervalMs), probe);
  }

  /** Drops the scheduled probe. */
  cancel(): void {
    this.timers.cancel(this.timer);
  }

  /** Stops probing: the scheduled probe, the next request to the URL and the one in flight (the host closes). */
  close(): void {
    this.closed = true;
    this.cancel();
    this.timers.cancel(this.waiting);
    this.closing.abort();
  }

  /**
   * One probe (`ping`; `server/discover` on 2026-07-28, which has no ping): undefined when the server answered, even
   * with an error.
   */
  async ping(client: Client): Promise<ProbeFailure | undefined> {
    const options = { timeout: this.timeoutMs };
    try {
      await (client.getProtocolEra() === 'modern' ? client.discover(options) : client.ping(options));
      return undefined;
    } catch (error) {
      return probeFailure(error, this.timeoutMs);
    }
  }

  /**
   * While the server is unreachable: one small request to its URL per probe interval; the first answer starts
   * `reconnect`.
   */
  awaitAnswer(reconnect: () => void): void {
    const { url, headers, probeIntervalMs } = this.http;
    this.waiting = this.timers.after(probeDelay(probeIntervalMs), async () => {
      const signal = AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.timeoutMs)]);
      const back = await answers(url, headers, signal);
      if (this.closed) return;
      if (back) reconnect();
      else this.awaitAnswer(reconnect);
    });
  }
}
