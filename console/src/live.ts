/**
 * The live state the stream feeds: the calls (newest first, at most 500), the held approvals (and
 * the last one answered) and the host's news (newest first, at most 500), as a reducer over the
 * stream's events.
 */
import type { ServerEvent } from './sse.js';
import type { CallEntry, Change, Hello, LogEvent, PendingApproval, Settled } from '../../core/console/api-types.js';
import type { ChangeEvent, WarningEvent } from '../../core/console/api-types.js';

/** An entry of the Changes panel: a change, a plugin's log line or a warning, as it came. */
export type HostNews =
  | { type: 'change'; at: string; change: Change }
  | ({ type: 'log' } & LogEvent)
  | ({ type: 'warning' } & WarningEvent);

/** How many calls and news entries the page keeps. */
export const KEPT = 500;

/** What the stream has told the page. */
export interface Live {
  calls: CallEntry[];
  approvals: PendingApproval[];
  news: HostNews[];
  /** the host's generation: a new one means the overview is stale */
  generation: number;
  /** the last held call answered, with its tool (the page says who answered it) */
  settled?: Settled & { tool: string };
}

/** The state before the first event. */
export const EMPTY: Live = { calls: [], approvals: [], news: [], generation: 0 };

/** `calls` merged into `kept` by id, newest first, capped. */
function mergeCalls(kept: CallEntry[], calls: CallEntry[]): CallEntry[] {
  const byId = new Map(kept.map((call) => [call.id, call]));
  for (const call of calls) byId.set(call.id, call);
  return [...byId.values()].sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0)).slice(0, KEPT);
}

/** The state after one event of the stream (unknown events change nothing). */
export function reduce(live: Live, event: ServerEvent): Live {
  const data = JSON.parse(event.data) as unknown;
  switch (event.event) {
    case 'hello': {
      const hello = data as Hello;
      return {
        ...live,
        generation: hello.generation,
        calls: mergeCalls(live.calls, hello.calls),
        approvals: hello.approvals,
      };
    }
    case 'call':
      return { ...live, calls: mergeCalls(live.calls, [data as CallEntry]) };
    case 'approval': {
      const approval = data as PendingApproval;
      return { ...live, approvals: [...live.approvals.filter((a) => a.id !== approval.id), approval] };
    }
    case 'settled': {
      const settled = data as Settled;
      const held = live.approvals.find((a) => a.id === settled.id);
      return {
        ...live,
        approvals: live.approvals.filter((a) => a.id !== settled.id),
        ...(held ? { settled: { ...settled, tool: held.tool } } : {}),
      };
    }
    case 'change': {
      const change = data as ChangeEvent;
      const news = change.changes.map((c): HostNews => ({ type: 'change', at: change.at, change: c })).reverse();
      return { ...live, generation: change.generation, news: [...news, ...live.news].slice(0, KEPT) };
    }
    case 'log':
      return {
        ...live,
        news: [{ ...(data as LogEvent), type: 'log' as const }, ...live.news].slice(0, KEPT),
      };
    case 'warning':
      return {
        ...live,
        news: [{ ...(data as WarningEvent), type: 'warning' as const }, ...live.news].slice(0, KEPT),
      };
    default:
      return live;
  }
}
