/**
 * Breaker counts a fleet shares (config `limits.breaker.shared`): each replica's
 * failures are also counted in the state store, under the circuit's key, in a
 * window of `windowMs` from the first failure; the replica whose failure reaches
 * the limit (spread as the circuit requires: over sessions, over tools) tells
 * every replica through publish, and each opens the circuit for the cool-down.
 * Only failures reach the store: a call that succeeds costs no round trip. A store
 * that fails loses the fleet's count (the store counts its errors); each replica's
 * own breaker still counts its own failures.
 */
import type { StateStore } from '../state/store-contract.js';

/** The channel on which a replica tells the others a circuit opened. */
const CHANNEL = 'breaker:open';

/** One failure as the fleet counts it. */
interface FleetFailure {
  key: string;
  /** the tool, for a group circuit's spread */
  member: string;
  session: string;
  kind: string;
  /** the failures within the window that open the circuit */
  limit: number;
  /** distinct tools (group) and sessions (shared) the failures must come from */
  spread: { members: boolean; sessions: boolean };
}

/** A circuit the fleet opened: its key, why, and for how long. */
export interface FleetOpening {
  key: string;
  reason: string;
  coolDownMs: number;
}

/** The fleet's side of a breaker: counts failures in the store and hears of circuits opened anywhere. */
export class FleetBreaker {
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly store: StateStore,
    private readonly limits: { windowMs: number; coolDownMs: number },
  ) {}

  /** Listens for circuits opened by any replica (this one included). */
  async listen(onOpen: (opening: FleetOpening) => void): Promise<void> {
    this.unsubscribe = await this.store.subscribe(CHANNEL, (message) => {
      const opening = parseOpening(message);
      if (opening) onOpen(opening);
    });
  }

  /** Counts `failure` fleet-wide, and tells the fleet when it opens the circuit (`reason` words it). Never throws. */
  async count(failure: FleetFailure, reason: (count: number) => string): Promise<void> {
    try {
      const base = `breaker:${failure.key}`;
      const count = await this.store.increment(`${base}:count`, 1, this.limits.windowMs);
      await this.store.mapSet(`${base}:from`, { [`${failure.session}\n${failure.member}`]: '1' }, this.limits.windowMs);
      if (count < failure.limit || !(await this.spread(`${base}:from`, failure))) return;
      // The first to reach the limit clears the count, so the fleet opens the circuit once per window.
      if (!(await this.store.delete(`${base}:count`))) return;
      await this.store.delete(`${base}:from`);
      const opening: FleetOpening = { key: failure.key, reason: reason(count), coolDownMs: this.limits.coolDownMs };
      await this.store.publish(CHANNEL, JSON.stringify(opening));
    } catch {
      // Counted by the store (`errors`); this replica's own breaker still holds.
    }
  }

  private async spread(key: string, failure: FleetFailure): Promise<boolean> {
    const from = Object.keys(await this.store.mapGet(key)).map((field) => field.split('\n'));
    const distinct = (index: number) => new Set(from.map((pair) => pair[index])).size > 1;
    return (!failure.spread.sessions || distinct(0)) && (!failure.spread.members || distinct(1));
  }

  /** Stops listening. */
  async close(): Promise<void> {
    await this.unsubscribe?.().catch(() => {});
  }
}

function parseOpening(message: string): FleetOpening | undefined {
  try {
    const { key, reason, coolDownMs } = JSON.parse(message) as Partial<FleetOpening>;
    if (typeof key !== 'string' || typeof reason !== 'string' || typeof coolDownMs !== 'number') return undefined;
    return { key, reason, coolDownMs };
  } catch {
    return undefined;
  }
}
