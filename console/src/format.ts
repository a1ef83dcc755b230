/**
 * How the page writes times, durations, sizes and JSON values: short, and always as text.
 */

/** `14:03:27` for an ISO time (the local clock). */
export function clock(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleTimeString([], { hour12: false });
}

/** `12 ms`, `1.4 s`. */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** `820 chars`, `12.3k chars`. */
export function size(chars: number): string {
  return chars < 10_000 ? `${chars} chars` : `${(chars / 1000).toFixed(1)}k chars`;
}

/** A JSON value, indented (a string stays as it is). */
export function json(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2) ?? String(value);
}

/**
 * A session id short enough for a table cell: a long random one (an MCP session's UUID) is cut to its first 8
 * characters.
 */
function shortSession(id: string | undefined): string | undefined {
  return id && id.length > 16 ? `${id.slice(0, 8)}…` : id;
}

/**
 * Who a call came from: the identity's subject and the session (a long id cut short: the full one is in {@link
 * callerInFull}).
 */
export function caller(entry: { identity?: { subject: string }; sessionId?: string }): string {
  return [entry.identity?.subject, shortSession(entry.sessionId)].filter(Boolean).join(' · ') || '—';
}

/** Who a call came from, with the whole session id (for a tooltip). */
export function callerInFull(entry: { identity?: { subject: string; issuer?: string }; sessionId?: string }): string {
  return [
    entry.identity && `${entry.identity.subject}${entry.identity.issuer ? ` (${entry.identity.issuer})` : ''}`,
    entry.sessionId && `session ${entry.sessionId}`,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The caller chain of a nested call, outermost first (`execute_code › read_file`), or '—'. */
export function chainText(chain: Array<{ tool: string }> | undefined): string {
  return chain && chain.length > 0 ? chain.map((link) => link.tool).join(' › ') : '—';
}

/** A path as the header shows it: relative to the workspace root when inside it (the whole path is in the tooltip). */
export function underRoot(file: string, root: string): string {
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return file.startsWith(prefix) ? file.slice(prefix.length) : file;
}
