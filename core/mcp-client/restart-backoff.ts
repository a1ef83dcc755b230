/**
 * When an MCP server's connection is tried again after it ended: a new session at once when
 * the server ended its session, the handshake once an unreachable HTTP server answers a probe,
 * else a restart after a capped exponential backoff that starts over after a stable connection.
 */
import type { ConnectionState } from '../runners/connection-report.js';

/** The first restart waits this long; each further one twice as long, up to the cap. */
const RESTART_INITIAL_MS = 500;
/** The longest wait between two restarts. */
const RESTART_MAX_MS = 30_000;
/** A connection that stayed up this long starts the backoff from the beginning again. */
const STABLE_MS = 10_000;

/** The wait before restart number `failures + 1`: 500 ms, doubling, capped at 30 s. */
export function restartDelay(failures: number): number {
  return Math.min(RESTART_MAX_MS, RESTART_INITIAL_MS * 2 ** failures);
}

/** A duration in words: `250 ms`, `1.5 s`. */
function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** How the next attempt starts, and the words that tell the operator. */
export type Retry =
  | { when: 'now'; next: string }
  | { when: 'answered'; next: string }
  | { when: 'after'; delayMs: number; next: string };

/** One connection's restarts: the failures counted since it was last stable, and when it last came up. */
export class RestartBackoff {
  private failures = 0;
  private connectedAt = 0;

  constructor(private readonly now: () => number) {}

  /** The connection completed its handshake and its first listing. */
  up(): void {
    this.connectedAt = this.now();
  }

  /**
   * The connection ended; one that stayed up STABLE_MS starts the backoff over, unless `credit` is false (it ended to
   * wait for a login).
   */
  down(credit = true): void {
    if (credit && this.connectedAt && this.now() - this.connectedAt >= STABLE_MS) this.failures = 0;
    this.connectedAt = 0;
  }

  /**
   * The next attempt after the connection ended in `state`: a new session at once (`reinitialize`), the handshake once
   * an unreachable HTTP server (`probeIntervalMs`) answers, else a restart after the backoff (counted as a failure).
   */
  retry(state: ConnectionState, http: { probeIntervalMs: number } | undefined, reinitialize = false): Retry {
    if (reinitialize) return { when: 'now', next: 'initializing a new session' };
    if (http !== undefined && state === 'unreachable') {
      const { probeIntervalMs: interval } = http;
      const every = `one every ${seconds(interval)} to ${seconds(interval * 1.5)}`;
      return { when: 'answered', next: `reconnecting as soon as it answers a probe (${every})` };
    }
    const delayMs = restartDelay(this.failures++);
    return { when: 'after', delayMs, next: `${http ? 'reconnecting' : 'restarting'} in ${seconds(delayMs)}` };
  }
}
