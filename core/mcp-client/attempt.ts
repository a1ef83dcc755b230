/**
 * One attempt at an MCP server's connection: its client, its process (stdio) and how it
 * ended, in words — and the tails of what the server wrote to stderr.
 */
import type { Client, Transport } from '@modelcontextprotocol/client';
import { overLimitMessage, SIGXFSZ_EXIT, type ResourceLimits } from '../../boundary/launch/resources.js';

/** Characters of a server's stderr kept for explain, and of an attempt's for its reason. */
const STDERR_TAIL = 2_000;

/** The last characters a server wrote to stderr. */
export class StderrTail {
  text = '';

  add(text: string): void {
    this.text = (this.text + text).slice(-STDERR_TAIL);
  }

  /** The last line that is not blank, as `: line` (at most 300 characters), or '' when there is none. */
  lastLine(): string {
    const lines = this.text.trim().split('\n');
    const last = lines[lines.length - 1]?.trim();
    return last ? `: ${last.slice(0, 300)}` : '';
  }
}

/** How a server's process exited. */
export type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** An exit in words: `exited with code 1`, `was killed by SIGTERM`. */
export function exitText(exit: Exit | undefined): string {
  if (!exit) return 'exited';
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

/** One attempt: a client, and for stdio the process it started. */
export class Attempt {
  pid?: number;
  /** what it wrote to stderr since its handshake began, or since it completed (the part that explains a stop) */
  recent = new StderrTail();
  exit?: Exit;
  /** why the host's watchdog stopped it ("it went over its memory limit of …") */
  stopped?: string;
  /** stops the watchdog */
  unwatch?: () => void;
  /** the SDK closed the transport while the server still ran (a failed handshake): its exit then is not the reason */
  closedFirst?: boolean;
  /** the probe in flight (HTTP), which transport errors of calls wait on instead of sending their own */
  probing?: Promise<void>;
  /** its transport: closed by close() itself, since the SDK's client knows it only once its handshake is under way */
  transport?: Transport;

  constructor(
    readonly id: number,
    readonly client: Client,
  ) {}

  /** Its process exited; a write past RLIMIT_FSIZE (`limits`) is named as the limit it went over. */
  exited(exit: Exit, limits: ResourceLimits | undefined): void {
    this.exit = exit;
    this.unwatch?.();
    // A write past RLIMIT_FSIZE kills a process with SIGXFSZ (a launcher reports it as 128 + 25).
    if (limits && !this.stopped && (exit.signal === 'SIGXFSZ' || exit.code === SIGXFSZ_EXIT))
      this.stopped = overLimitMessage('fileSizeMb', limits);
  }

  /** How it ended, in words: the limit it was stopped at, or its exit and last stderr line. */
  ending(): string {
    if (this.stopped) return `was stopped by toolshed: ${this.stopped}`;
    return `${exitText(this.exit)}${this.recent.lastLine()}`;
  }

  /** Whether its process is still running as far as the host knows. */
  running(): boolean {
    return this.pid !== undefined && !this.exit;
  }
}
