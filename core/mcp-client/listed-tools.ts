/**
 * An MCP server's tools as it last listed them, and when they are listed again: after a
 * `notifications/tools/list_changed`, debounced, with at most one listing in flight.
 */
import type { Timers, TimerHandle } from '../state/clock.js';
import type { Listing } from './listing.js';
import type { UpstreamTool } from './tools.js';

/** A re-list waits this long after the last list_changed, so a burst costs one listing. */
const RELIST_DEBOUNCE_MS = 250;
/** ...but never longer than this after the first unanswered one, so a storm still re-lists. */
const RELIST_MAX_WAIT_MS = 2_000;

/** The start of a failed re-list's note; a later failure replaces it. */
const RELIST_FAILED = 're-listing tools of ';

/** The last listing taken: its tools, the notes on what it cut, their output schemas and which run as tasks. */
export class ListedTools {
  /** the tools as the server last listed them */
  tools: UpstreamTool[] = [];
  /**
   * whether the server has listed its tools yet (before that, `tools` is empty because nothing was heard, not because
   * it lists none)
   */
  listed = false;
  /** what the last listing cut or left out, for explain */
  notes: string[] = [];
  /** output schemas by the server's own tool name, as last listed */
  outputSchemas = new Map<string, object>();
  /** the server's own names of the tools that must be called as tasks, as last listed */
  private taskTools = new Set<string>();

  /** Holds `listing` in place of the last one. */
  take(listing: Listing): void {
    this.tools = listing.tools;
    this.listed = true;
    this.notes = listing.notes;
    this.outputSchemas = listing.outputSchemas;
    this.taskTools = new Set(
      listing.tools.filter((tool) => tool.execution?.taskSupport === 'required').map((tool) => tool.name),
    );
  }

  /** Whether the server's own tool `name` must be called as a task. */
  requiresTask(name: string): boolean {
    return this.taskTools.has(name);
  }

  /** A re-list of `server` failed with `message`: the last list is kept, with one note saying so. */
  relistFailed(server: string, message: string): string {
    const note = `${RELIST_FAILED}${server} failed, the last list is kept: ${message}`;
    this.notes = [...this.notes.filter((kept) => !kept.startsWith(RELIST_FAILED)), note];
    return note;
  }
}

/** When to list again: list_changed debounced, one listing in flight, and once more after it when asked meanwhile. */
export class Relisting {
  private listing: Promise<void> | undefined;
  private again = false;
  private timer: TimerHandle | undefined;
  /** when the oldest list_changed not yet answered by a listing arrived */
  private changedSince: number | undefined;

  /** `timers`: the host's clock (real timers unref'd). */
  constructor(private readonly timers: Timers) {}

  /**
   * A list_changed: `relist` once the notifications pause for RELIST_DEBOUNCE_MS, or RELIST_MAX_WAIT_MS after the
   * first one not yet listed, whichever is first.
   */
  changed(relist: () => void): void {
    const now = this.timers.now();
    this.changedSince ??= now;
    this.timers.cancel(this.timer);
    const wait = Math.max(0, Math.min(RELIST_DEBOUNCE_MS, this.changedSince + RELIST_MAX_WAIT_MS - now));
    this.timer = this.timers.after(wait, () => {
      this.changedSince = undefined;
      relist();
    });
  }

  /** Drops a pending re-list and the list_changed it waited for (the connection ended). */
  cancel(): void {
    this.timers.cancel(this.timer);
    this.changedSince = undefined;
  }

  /** The listing in flight, which now lists once more after it ends; undefined when none is. */
  join(): Promise<void> | undefined {
    if (this.listing) this.again = true;
    return this.listing;
  }

  /** Runs `list` until no one asked again while it ran (`join`), or until it returns false (the attempt is gone). */
  start(list: () => Promise<boolean>): Promise<void> {
    const run = async () => {
      do {
        this.again = false;
        if (!(await list())) return;
      } while (this.again);
    };
    this.listing = run().finally(() => {
      this.listing = undefined;
    });
    return this.listing;
  }
}
