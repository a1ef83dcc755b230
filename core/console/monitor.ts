/**
 * What the console watches of the root host (a reloading one too): every call that ends (kept
 * in the call log), calls held for approval (the console is an approver racing each call's own),
 * changes (with what moved in the report), logs and warnings, each sent to the event streams.
 */
import { inspectorOf } from '../host/inspector.js';
import type { HostEvents } from '../host/events.js';
import type { HostReport } from '../explain/public-types.js';
import type { ToolHost } from '../host/host.js';
import { CallLog, withPayloads } from './calls.js';
import { PendingApprovals } from './approvals.js';
import { definitionChange, diffReports } from './changes.js';
import { EventStreams } from './event-stream.js';
import type { ChangeEvent, LogEvent, WarningEvent } from './api-types.js';

/** The host's report, or undefined while it cannot give one (an opening host). */
function safeExplain(host: ToolHost): HostReport | undefined {
  try {
    return host.explain();
  } catch {
    return undefined;
  }
}

/** A log entry's fields as the event sends them. */
function logFields(entry: HostEvents['log'][0]) {
  return {
    plugin: entry.plugin,
    ...(entry.tool !== undefined ? { tool: entry.tool } : {}),
    level: entry.level,
    message: entry.message,
  };
}

/** The console's watch on one host, from construction to close(). */
export class HostMonitor {
  readonly streams: EventStreams;
  readonly calls = new CallLog();
  readonly approvals: PendingApprovals;
  /** the host's generation at its last change */
  generation = 0;
  private report: HostReport | undefined;
  private readonly stopApprover: () => void;

  private readonly onCall = (call: HostEvents['call'][0]) => {
    const entry = this.calls.add(call);
    this.streams.send('call', (payloads: boolean) => withPayloads(entry, payloads));
  };
  private readonly onChange = (next: number) => {
    this.generation = next;
    const after = safeExplain(this.host);
    const changes = this.report && after ? diffReports(this.report, after) : [];
    if (after) this.report = after;
    this.streams.send('change', {
      generation: this.generation,
      at: new Date().toISOString(),
      changes,
    } satisfies ChangeEvent);
  };
  private readonly onLog = (entry: HostEvents['log'][0]) =>
    this.streams.send('log', { at: new Date().toISOString(), ...logFields(entry) } satisfies LogEvent);
  private readonly onWarning = (message: string) =>
    this.streams.send('warning', { at: new Date().toISOString(), message } satisfies WarningEvent);
  private readonly onDefinition = (change: HostEvents['definition-changed'][0]) =>
    this.streams.send('change', {
      generation: this.generation,
      at: new Date().toISOString(),
      changes: [definitionChange(change)],
    } satisfies ChangeEvent);

  constructor(private readonly host: ToolHost) {
    const streams = new EventStreams(host.clock);
    this.streams = streams;
    this.approvals = new PendingApprovals({
      held: (approval) => streams.send('approval', approval),
      settled: (settled) => streams.send('settled', settled),
    });
    this.report = safeExplain(host);
    host.on('call', this.onCall);
    this.stopApprover = inspectorOf(host).addApprover(this.approvals.approver);
    host.on('change', this.onChange);
    host.on('log', this.onLog);
    host.on('warning', this.onWarning);
    host.on('definition-changed', this.onDefinition);
  }

  /** Stops watching the host, refuses every held call and ends every event stream. */
  close(): void {
    const { host } = this;
    host.off('call', this.onCall);
    this.stopApprover();
    host.off('change', this.onChange);
    host.off('log', this.onLog);
    host.off('warning', this.onWarning);
    host.off('definition-changed', this.onDefinition);
    this.approvals.close();
    this.streams.close();
  }
}
