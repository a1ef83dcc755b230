/** What a runner delivers when it could not deliver a worker's reply, and the one phrase that words it. */
import type { WorkerReply } from './protocol.js';

/** Why a runner could not deliver a result. */
export type RunnerFailure =
  /**
   * `waiting`: the deadline passed while the call still waited for a worker; it never started (not the tool's failure)
   */
  | { kind: 'timeout'; timeoutMs: number; waiting?: boolean }
  | { kind: 'cancelled' }
  | { kind: 'crashed'; message: string; outOfMemory: boolean }
  /**
   * a remote MCP server's transport failed this call (connection refused or reset, a proxy's 502/503/504); the server
   * may well be up
   */
  | { kind: 'unreachable'; message: string }
  | { kind: 'queue-full'; limit: number; retryAfterMs?: number }
  /**
   * the call acts for its caller and has no credentials for them (none, or refused): `message` says which, never a
   * value
   */
  | { kind: 'credentials'; message: string }
  | { kind: 'closed' };

/** A worker reply, or the runner's own failure. */
export type RunOutcome<T> = WorkerReply<T> | { ok: false; failure: RunnerFailure };

/**
 * One phrase for why a runner delivered no result, to follow what failed:
 * `${what} ${describeRunnerFailure(f)}` ("the check timed out after 300 ms").
 */
export function describeRunnerFailure(failure: RunnerFailure): string {
  switch (failure.kind) {
    case 'timeout':
      return failure.waiting
        ? `timed out after ${failure.timeoutMs} ms waiting for a free worker; it never started`
        : `timed out after ${failure.timeoutMs} ms`;
    case 'cancelled':
      return 'was cancelled by the caller';
    case 'queue-full':
      return `could not start: the maximum of ${failure.limit} calls are already waiting`;
    case 'crashed':
      return `crashed: ${failure.message}`;
    case 'unreachable':
      return `did not reach its server: ${failure.message}`;
    case 'closed':
      return 'could not run: the host is closed';
    case 'credentials':
      return `could not run: ${failure.message}`;
  }
}
