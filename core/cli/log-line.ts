/** How the CLI prints a plugin's log line on stderr: `[plugin/tool] message`, its level first from warning up. */
import type { HostEvents } from '../host/events.js';
import { visible } from '../text/visible.js';

/** Levels shown with the line (the rest are plain). */
const LOUD = new Set(['warning', 'error', 'critical', 'alert', 'emergency']);

/** One log entry as a line, every control character in it shown as text (a plugin's or server's colour codes too). */
export function logLine(entry: HostEvents['log'][0]): string {
  const source = `[${entry.plugin}${entry.tool ? `/${entry.tool}` : ''}]`;
  return visible(LOUD.has(entry.level) ? `${source} ${entry.level}: ${entry.message}` : `${source} ${entry.message}`);
}
