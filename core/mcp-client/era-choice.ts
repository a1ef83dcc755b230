/**
 * Which MCP era a connection speaks: as `protocol` says (`auto`: `server/discover`, then the
 * 2025 `initialize` for a server that does not know it), and the 2025 era alone for a stdio
 * server that exited on the probe.
 */
import { SdkError, SdkErrorCode, type ClientOptions } from '@modelcontextprotocol/client';
import type { Attempt } from './attempt.js';
import type { ResolvedServer } from './config.js';

/** The longest a stdio server may stay silent on `server/discover` before it is taken for a 2025 one. */
const PROBE_TIMEOUT_MS = 5_000;

/** One server's era negotiation, which falls back to the 2025 era once the probe killed it. */
export class EraChoice {
  /** a stdio server that exited on the `server/discover` probe: spoken to in the 2025 era from then on */
  private legacyOnly = false;

  constructor(private readonly server: Pick<ResolvedServer, 'protocol' | 'stdio' | 'startTimeoutMs'>) {}

  /** How the era is chosen: as configured, and 2025 only for a stdio server that exited on the probe. */
  negotiation(): Pick<ClientOptions, 'versionNegotiation'> {
    const choice = this.server.protocol;
    if (choice === 'legacy' || this.legacyOnly) return { versionNegotiation: { mode: 'legacy' } };
    if (choice === '2026-07-28') return { versionNegotiation: { mode: { pin: '2026-07-28' } } };
    const timeoutMs = this.server.stdio
      ? Math.min(PROBE_TIMEOUT_MS, this.server.startTimeoutMs)
      : this.server.startTimeoutMs;
    return { versionNegotiation: { mode: 'auto', probe: { timeoutMs } } };
  }

  /** Whether `attempt` exited during the era probe with `error` (auto mode, stdio, not yet retried without it). */
  killedByProbe(attempt: Attempt, error: unknown): boolean {
    if (!this.server.stdio || this.server.protocol !== 'auto' || this.legacyOnly || attempt.stopped) return false;
    // The transport reports its close after the child's exit, so a probe the server died on has its exit recorded.
    return (
      error instanceof SdkError &&
      error.code === SdkErrorCode.EraNegotiationFailed &&
      attempt.exit !== undefined &&
      !attempt.closedFirst
    );
  }

  /** The server exited on the probe: the 2025 era from now on. */
  fallBack(): void {
    this.legacyOnly = true;
  }
}
