/**
 * Keeps a long-running server's view of availability current. The host only
 * re-evaluates checks when asked (definitions, dispatch, refresh), so a server
 * idle between requests would never notice a check flip; this loop asks once
 * per check TTL, which runs only the checks whose cached verdict expired and
 * lets the host emit 'change' (and so list_changed) when the exposed set moved.
 */
import { timers } from '../../state/clock.js';
import type { ToolHost } from '../../host/host.js';

/** The shortest and longest pause between two evaluations. */
const MIN_INTERVAL_MS = 250;
const MAX_INTERVAL_MS = 60_000;

/** Re-evaluates `host` every check TTL (clamped to 250 ms – 60 s); returns the function that stops it. */
export function startRefreshLoop(host: ToolHost, onError: (error: unknown) => void = () => {}): () => void {
  const interval = Math.min(MAX_INTERVAL_MS, Math.max(MIN_INTERVAL_MS, host.config.checks.ttlMs));
  let running = false;
  // The loop alone must not keep the process alive after the transport closed (its real timers are unref'd).
  return timers(host.clock, { unref: true }).every(interval, () => {
    if (running) return;
    running = true;
    host
      .refresh()
      .catch(onError)
      .finally(() => {
        running = false;
      });
  });
}
