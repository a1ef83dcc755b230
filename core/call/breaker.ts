/**
 * The circuit breaker: a tool (or a whole plugin, or any other unit a caller
 * names by key, such as an MCP server toolset) that crashes or times out
 * `failures` times within `windowMs` is taken out of service for `coolDownMs`:
 * its tools are hidden with the reason, and calls that still arrive are
 * refused without starting a worker. After the cool-down the tools are shown
 * again and one probe call is let through; if it crashes or times out too the
 * circuit opens again, otherwise it closes. Each crash costs a fresh worker
 * or child process, so without this a model retrying a broken tool, or a
 * hostile plugin, burns the host's CPU.
 *
 * Failures are weighed by session: a tool's (or plugin's) circuit, which hides it
 * from everyone, opens only when its failures come from more than one session;
 * one session's own failures open that session's circuit, which refuses that
 * session's calls only. A call without a session is a session of its own, so
 * a host whose callers name no sessions counts as before.
 */
import type { Clock } from '../expose/check-cache.js';
import type { BreakerLimits } from '../config/public-types.js';
import type { FleetBreaker, FleetOpening } from './fleet-breaker.js';
import type { BreakerReport } from './public-types.js';
import type { CallOutcome } from '../../boundary/outcome.js';
import type { RunOutcome } from '../../boundary/runner-failure.js';
import type { NormalizedResult } from '../../boundary/protocol.js';

/** What counts against a circuit. */
type BreakerFailure = 'crashed' | 'timed out';

/**
 * How a call ended, as the breaker sees it: a failure, a success (the worker survived), or neither (cancelled, queue
 * full).
 */
export type BreakerVerdict = BreakerFailure | 'ok' | 'neutral';

/** An open circuit: why, and until when. */
interface OpenCircuit {
  reason: string;
  until: number;
}

/**
 * One circuit a call counts against. A group circuit (a plugin, an MCP server)
 * opens only when its failures come from more than one member: a single broken
 * tool is its own circuit's business and does not take its siblings down.
 */
interface CircuitKey {
  key: string;
  /** shown in the reason: "its plugin P" */
  label?: string;
  group?: boolean;
  /** a circuit every session sees: it opens only when its failures come from more than one session */
  shared?: boolean;
  /** one session's circuit: it refuses that session's calls and changes nothing anyone else is shown */
  scoped?: boolean;
}

interface Circuit {
  failures: Array<{ at: number; kind: BreakerFailure; member: string; session: string }>;
  open?: OpenCircuit;
  /** a probe call is running (the cool-down is over, the circuit not yet closed) */
  probing: boolean;
}

/** A call the breaker let through; settle it with how the call ended. */
interface BreakerTicket {
  settle(verdict: BreakerVerdict): void;
}

/**
 * How a call's outcome counts for the breaker: only crashes and timeouts count against it. Not a
 * transport error (the network's, not the tool's), nor a timeout that passed while the call still
 * waited for a worker (`raw`, the tier's own outcome, says so): the queue was slow, the tool did
 * nothing wrong.
 */
export function breakerVerdict(outcome: CallOutcome, raw?: RunOutcome<NormalizedResult>): BreakerVerdict {
  if (outcome.ok) return 'ok';
  switch (outcome.code) {
    case 'TOOL_CRASHED':
      return 'crashed';
    case 'TOOL_TIMEOUT':
      return raw && 'failure' in raw && raw.failure.kind === 'timeout' && raw.failure.waiting ? 'neutral' : 'timed out';
    case 'TOOL_CANCELLED':
    case 'TOOL_UNREACHABLE':
    case 'QUEUE_FULL':
    case 'HOST_CLOSED':
      return 'neutral';
    default:
      return 'ok';
  }
}

/** The start of a session's circuit keys. */
const SESSION_PREFIX = 'session:';

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** Circuits by key (`tool:NAME`, `plugin:NAME`, …). */
export class CircuitBreaker {
  private readonly circuits = new Map<string, Circuit>();
  /** numbers calls without a session, each a session of its own */
  private anonymous = 0;
  /** where failures are also counted fleet-wide (`limits.breaker.shared`) */
  private fleet: FleetBreaker | undefined;

  /** `onChange` runs whenever a circuit opens or closes (the exposed tools change). */
  constructor(
    private readonly limits: BreakerLimits,
    private readonly clock: Clock,
    private readonly onChange: () => void = () => {},
  ) {}

  /** Counts failures fleet-wide too, and opens circuits any replica opened. */
  async share(fleet: FleetBreaker): Promise<void> {
    this.fleet = fleet;
    await fleet.listen((opening) => this.openFromFleet(opening));
  }

  private openFromFleet({ key, reason, coolDownMs }: FleetOpening): void {
    const circuit = this.circuit(key);
    const now = this.clock.now();
    const hidden = circuit.open !== undefined && now < circuit.open.until;
    // This replica's own count may have opened it already: the later cool-down holds.
    circuit.open = { reason, until: Math.max(now + coolDownMs, circuit.open?.until ?? 0) };
    circuit.failures = [];
    if (!hidden && !key.startsWith(SESSION_PREFIX)) this.onChange();
  }

  private circuit(key: string): Circuit {
    let circuit = this.circuits.get(key);
    if (!circuit) {
      circuit = { failures: [], probing: false };
      this.circuits.set(key, circuit);
    }
    return circuit;
  }

  /** When circuits whose failures have all left the window are next looked for. */
  private nextSweep = 0;

  /**
   * Whether any circuit exists (open or counting failures); with none, no tool is out of service.
   * A closed circuit whose failures have all left the window is gone (looked for at most once a
   * window), so one crash long ago does not keep every call building its keys.
   */
  get idle(): boolean {
    if (this.circuits.size === 0) return true;
    const now = this.clock.now();
    if (now >= this.nextSweep) {
      this.nextSweep = now + this.limits.windowMs;
      for (const [key, circuit] of this.circuits) {
        if (!circuit.open && !circuit.probing && circuit.failures.every((f) => f.at <= now - this.limits.windowMs))
          this.circuits.delete(key);
      }
    }
    return this.circuits.size === 0;
  }

  /**
   * Every circuit that is open, probing or counting failures now, sorted by key: what explain and
   * the console show. A circuit whose failures all left the window and that is not open is left out.
   */
  report(): BreakerReport[] {
    const now = this.clock.now();
    const lines: BreakerReport[] = [];
    for (const [key, circuit] of this.circuits) {
      const failures = circuit.failures.filter((failure) => failure.at > now - this.limits.windowMs).length;
      const open = circuit.open;
      if (open && now < open.until)
        lines.push({ key, state: 'open', failures, reason: open.reason, until: new Date(open.until).toISOString() });
      else if (open)
        lines.push({ key, state: circuit.probing ? 'probing' : 'half-open', failures, reason: open.reason });
      else if (failures > 0) lines.push({ key, state: 'counting', failures });
    }
    return lines.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** The first of `keys` whose circuit is open now (its cool-down not over), if any. */
  openOf(keys: readonly CircuitKey[]): OpenCircuit | undefined {
    const now = this.clock.now();
    for (const { key } of keys) {
      const open = this.circuits.get(key)?.open;
      if (open && now < open.until) return open;
    }
    return undefined;
  }

  /**
   * Lets a call through unless one of its circuits is open, or is past its
   * cool-down with a probe call already running; returns the refusal reason or a ticket.
   */
  admit(keys: readonly CircuitKey[], member: string, session?: string): { refused: string } | BreakerTicket {
    if (this.limits.failures <= 0) return { settle: () => {} };
    const open = this.openOf(keys);
    if (open) return { refused: open.reason };
    const probes: Circuit[] = [];
    for (const { key } of keys) {
      const circuit = this.circuits.get(key);
      if (!circuit?.open) continue;
      if (circuit.probing)
        return {
          refused:
            `${circuit.open.reason.replace(/; retrying after .*$/, '')}; a probe call is running, retry when it ` +
            `is done`,
        };
      probes.push(circuit);
    }
    for (const circuit of probes) circuit.probing = true;
    let settled = false;
    return {
      settle: (verdict) => {
        if (settled) return;
        settled = true;
        for (const circuit of probes) circuit.probing = false;
        this.record(keys, member, session, verdict, probes);
      },
    };
  }

  /**
   * Books how a call ended that was let through without a ticket because no circuit existed
   * (`idle`) when it started: as a ticket from `admit` would then have (no probe to settle).
   */
  settleUnticketed(keys: readonly CircuitKey[], member: string, verdict: BreakerVerdict, session?: string): void {
    if (this.limits.failures <= 0 || verdict === 'ok' || verdict === 'neutral') return;
    this.record(keys, member, session, verdict, []);
  }

  private record(
    keys: readonly CircuitKey[],
    member: string,
    session: string | undefined,
    verdict: BreakerVerdict,
    probes: Circuit[],
  ): void {
    const now = this.clock.now();
    const from = session ?? `anonymous ${++this.anonymous}`;
    let changed = false;
    for (const spec of keys) {
      const { key } = spec;
      if (verdict === 'neutral') continue;
      if (verdict === 'ok') {
        // A probe that did not crash closes its circuit; outside a probe, successes do not erase
        // failures, and make no circuit (so a breaker that saw only successes stays idle).
        const circuit = this.circuits.get(key);
        if (circuit && probes.includes(circuit)) {
          this.circuits.delete(key);
          changed ||= !spec.scoped;
        }
        continue;
      }
      const circuit = this.circuit(key);
      const wasProbe = probes.includes(circuit);
      if (wasProbe) {
        circuit.open = {
          reason:
            `${verdict} again on the probe call after the cool-down${spec.scoped ? ' in this session' : ''}; ` +
            `retrying after ${seconds(this.limits.coolDownMs)}`,
          until: now + this.limits.coolDownMs,
        };
        changed ||= !spec.scoped;
        continue;
      }
      circuit.failures = circuit.failures.filter((f) => f.at > now - this.limits.windowMs);
      circuit.failures.push({ at: now, kind: verdict, member, session: from });
      if (this.fleet && !circuit.open) this.countInFleet(spec, member, from, verdict);
      if (circuit.failures.length >= this.limits.failures && spread(spec, circuit.failures) && !circuit.open) {
        circuit.open = { reason: this.reason(spec, circuit.failures), until: now + this.limits.coolDownMs };
        circuit.failures = [];
        changed ||= !spec.scoped;
      }
    }
    if (changed) this.onChange();
  }

  private countInFleet(spec: CircuitKey, member: string, session: string, kind: BreakerFailure): void {
    const failure = {
      key: spec.key,
      member,
      session,
      kind,
      limit: this.limits.failures,
      spread: { members: spec.group === true, sessions: spec.shared === true },
    };
    void this.fleet!.count(failure, (count) => this.words(spec, kind, count, ' across the fleet'));
  }

  private reason(spec: CircuitKey, failures: Circuit['failures']): string {
    const kinds = new Set(failures.map((f) => f.kind));
    const verb = kinds.size === 1 ? [...kinds][0]! : 'crashed or timed out';
    return this.words(spec, verb, failures.length, '');
  }

  private words(spec: CircuitKey, verb: string, count: number, fleet: string): string {
    const who = spec.label ? `the tools of ${spec.label} ` : '';
    const where = spec.scoped ? ' in this session' : '';
    return (
      `${who}${verb} ${count} times in ${seconds(this.limits.windowMs)}${where}${fleet}; retrying after ` +
      `${seconds(this.limits.coolDownMs)}`
    );
  }
}

/**
 * Whether a circuit's failures are spread as its kind requires: over tools for a group, over sessions for a shared
 * circuit.
 */
function spread(spec: CircuitKey, failures: Circuit['failures']): boolean {
  const distinct = (of: (f: Circuit['failures'][number]) => string) => new Set(failures.map(of)).size > 1;
  return (!spec.group || distinct((f) => f.member)) && (!spec.shared || distinct((f) => f.session));
}

/**
 * The circuits a call of `tool` from `plugin` counts against: the tool's own, and its plugin's (a
 * group), both shared by every session; and, for a call in a session, that session's own two.
 */
export function breakerKeys(tool: string, plugin: string, session?: string): CircuitKey[] {
  const keys: CircuitKey[] = [
    { key: `tool:${tool}`, shared: true },
    { key: `plugin:${plugin}`, label: `plugin ${plugin}`, group: true, shared: true },
  ];
  if (session === undefined) return keys;
  const scope = `${SESSION_PREFIX}${session.length}:${session}`;
  keys.push(
    { key: `${scope}:tool:${tool}`, scoped: true },
    { key: `${scope}:plugin:${plugin}`, label: `plugin ${plugin}`, group: true, scoped: true },
  );
  return keys;
}
