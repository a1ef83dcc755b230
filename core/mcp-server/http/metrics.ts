/**
 * The Prometheus metrics of `toolshed serve --http` (`/metrics`, ops.ts), in
 * a registry of their own (prom-client). Calls are counted where the server
 * runs them (call-tool.ts tells the `CallMeter`, an observer of each call it runs: one clock read and one
 * increment per call, nothing on the host's dispatch path); everything else
 * is read when Prometheus scrapes: queue depth and breaker states from the
 * host's report (made once per scrape), sessions from the session table, state-store errors from the
 * store's own count.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { performance } from 'node:perf_hooks';
import type { CallOutcome } from '../../../boundary/outcome.js';
import type { CallMeter } from '../protocol/call-tool.js';
import type { ToolHost } from '../../host/host.js';
import type { HostReport } from '../../explain/public-types.js';

/** The label a call to a tool the host does not know gets, so a client cannot mint series. */
const UNKNOWN_TOOL = '(unknown)';

/** Latency buckets in seconds: 5 ms to 2 minutes (tools run from microseconds to a shell command's minutes). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** What the metrics read at scrape time. */
export interface MetricSources {
  /** the host once it is open (undefined while it opens) */
  host(): ToolHost | undefined;
  /** MCP sessions open now */
  sessions(): number;
  /** sessions closed to make room for another so far */
  evicted(): number;
}

/** The registry `/metrics` serves, and the observer tools/call reports to. */
interface ServeMetrics {
  registry: Registry;
  meter: CallMeter;
  /** the Prometheus text of every metric now */
  scrape(): Promise<string>;
}

/** Builds the registry: call counters and latency fed by the meter, gauges read from `sources`. */
export function serveMetrics(sources: MetricSources): ServeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const calls = new Counter({
    name: 'toolshed_tool_calls_total',
    help: 'Tool calls served, by tool and outcome code (OK or the error code).',
    labelNames: ['tool', 'code'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'toolshed_tool_call_duration_seconds',
    help: 'Tool call latency as the server saw it, by tool.',
    labelNames: ['tool'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  // The gauges read the host's report: made once per scrape, not once per gauge.
  let report: HostReport | undefined;
  gauges(registry, sources, () => report);
  // Each label set's series, found once: prom-client hashes the labels on every inc() otherwise.
  const series = new Map<string, { count: { inc(): void }; latency: { observe(seconds: number): void } }>();
  const count = (tool: string, outcome: CallOutcome, ms: number) => {
    const label = !outcome.ok && outcome.code === 'UNKNOWN_TOOL' ? UNKNOWN_TOOL : tool;
    const code = outcome.ok ? 'OK' : outcome.code;
    const key = `${label}\0${code}`;
    let found = series.get(key);
    if (!found) {
      found = { count: calls.labels(label, code), latency: duration.labels(label) };
      series.set(key, found);
    }
    found.count.inc();
    found.latency.observe(ms / 1000);
  };
  // A call that throws is not counted (serve answers it with a protocol error).
  const meter: CallMeter = {
    started({ tool }) {
      const started = performance.now();
      return { settled: (outcome) => count(tool, outcome, performance.now() - started) };
    },
  };
  const scrape = async () => {
    report = sources.host()?.explain();
    try {
      return await registry.metrics();
    } finally {
      report = undefined;
    }
  };
  return { registry, meter, scrape };
}

/** The gauges and counters read when scraped; `report` is the host's report of this scrape. */
function gauges(registry: Registry, sources: MetricSources, report: () => HostReport | undefined): void {
  new Gauge({
    name: 'toolshed_queue_depth',
    help: 'Calls waiting for a worker, by plugin.',
    labelNames: ['plugin'],
    registers: [registry],
    collect() {
      this.reset();
      for (const plugin of report()?.plugins ?? [])
        if (plugin.pool) this.set({ plugin: plugin.name }, plugin.pool.queued);
    },
  });
  new Gauge({
    name: 'toolshed_calls_in_flight',
    help: 'Calls running or waiting for a worker, by plugin.',
    labelNames: ['plugin'],
    registers: [registry],
    collect() {
      this.reset();
      for (const plugin of report()?.plugins ?? [])
        if (plugin.pool) this.set({ plugin: plugin.name }, plugin.pool.inFlight);
    },
  });
  new Gauge({
    name: 'toolshed_breaker_open',
    help: "1 while a tool's circuit breaker holds it out of service, else 0, by tool.",
    labelNames: ['tool'],
    registers: [registry],
    collect() {
      this.reset();
      for (const tool of report()?.tools ?? [])
        this.set({ tool: tool.name }, tool.availability?.kind === 'breaker' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'toolshed_sessions',
    help: 'MCP sessions open.',
    registers: [registry],
    collect() {
      this.set(sources.sessions());
    },
  });
  countFrom(
    registry,
    'toolshed_sessions_evicted_total',
    'Idle sessions closed to make room for a new one.',
    sources.evicted,
  );
  countFrom(
    registry,
    'toolshed_state_store_errors_total',
    'State store operations that failed (unreachable or refused).',
    () => sources.host()?.state.errors ?? 0,
  );
  countFrom(
    registry,
    'toolshed_state_messages_dropped_total',
    "Messages on the state store's channels dropped: malformed, unauthenticated (not signed with the fleet's " +
      'key) or replayed.',
    () => sources.host()?.state.dropped ?? 0,
  );
}

/** A counter that follows a running count kept elsewhere (it only ever grows). */
function countFrom(registry: Registry, name: string, help: string, read: () => number): void {
  let seen = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = read();
      if (now > seen) this.inc(now - seen);
      seen = Math.max(seen, now);
    },
  });
}
