/**
 * The availability-check cache. Results are kept per key for `ttlMs`;
 * concurrent callers of one key share one in-flight probe; a failure within
 * `graceMs` of the last success serves that success and is not cached. The
 * clock is injected so tests drive time without sleeping.
 */
import type { CheckVerdict } from '../../boundary/protocol.js';
import type { Clock, VerdictSource } from './public-types.js';

export type { Clock } from './public-types.js';

/** How a verdict was obtained. */
interface CachedVerdict extends CheckVerdict {
  via: VerdictSource;
  /** when this verdict stops being valid */
  expiresAt: number;
  /** the failure the grace window masked */
  maskedReason?: string;
  /** how long the probe took, when it ran */
  probeMs?: number;
}

interface Entry {
  verdict: CheckVerdict;
  expiresAt: number;
}

/** TTL cache with single-flight and a grace window. */
export class CheckCache {
  private readonly entries = new Map<string, Entry>();
  private readonly lastSuccess = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<CachedVerdict>>();
  /** probes started, by key, for explain and tests */
  readonly probes = new Map<string, number>();

  constructor(private readonly options: { ttlMs: number; graceMs: number; clock: Clock }) {}

  /** The verdict for `key`, probing only when no fresh one is cached and none is in flight. */
  get(key: string, probe: () => Promise<CheckVerdict>): Promise<CachedVerdict> {
    const now = this.options.clock.now();
    const entry = this.entries.get(key);
    if (entry && now < entry.expiresAt)
      return Promise.resolve({ ...entry.verdict, via: 'cache', expiresAt: entry.expiresAt });
    const running = this.inFlight.get(key);
    if (running) return running;
    const started = this.run(key, probe).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }

  private async run(key: string, probe: () => Promise<CheckVerdict>): Promise<CachedVerdict> {
    this.probes.set(key, (this.probes.get(key) ?? 0) + 1);
    const { clock, ttlMs, graceMs } = this.options;
    const startedAt = clock.now();
    let verdict: CheckVerdict;
    try {
      verdict = await probe();
    } catch (error) {
      verdict = { ok: false, reason: `check threw: ${(error as Error)?.message ?? String(error)}` };
    }
    const now = clock.now();
    const probeMs = now - startedAt;
    if (verdict.ok) {
      this.lastSuccess.set(key, now);
      const expiresAt = now + ttlMs;
      this.entries.set(key, { verdict: { ok: true }, expiresAt });
      return { ok: true, via: 'probe', expiresAt, probeMs };
    }
    const success = this.lastSuccess.get(key);
    if (success !== undefined && now - success < graceMs) {
      // Serve the recent success; leave the entry expired so the next caller probes again.
      this.entries.delete(key);
      return { ok: true, via: 'grace', expiresAt: now, maskedReason: verdict.reason ?? 'check failed', probeMs };
    }
    const expiresAt = now + ttlMs;
    this.entries.set(key, { verdict, expiresAt });
    return { ...verdict, via: 'probe', expiresAt, probeMs };
  }

  /** Forgets every cached verdict (the grace window's last successes are kept). */
  invalidate(): void {
    this.entries.clear();
  }
}
