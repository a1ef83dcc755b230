/**
 * `toolshed init --from-claude-desktop FILE`: the `mcpServers` of a Claude
 * Desktop (or Cursor) config as toolshed entries. The shape is the same;
 * what toolshed does not know is left out with a note (and `disabled: true`,
 * which some clients write, becomes `enabled: false`). Nothing here reads
 * or starts anything: it is a pure translation of the file's text.
 */
import { ConfigError } from '../../boundary/errors.js';
import type { McpServerEntry } from '../config/config.js';

/** The servers to write, and what the operator should know about them. */
export interface ImportedServers {
  servers: Record<string, McpServerEntry>;
  notes: string[];
}

const KEPT = ['command', 'args', 'env', 'cwd', 'url', 'headers'] as const;
const NAME = /^[a-zA-Z0-9_-]{1,48}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function importOne(name: string, raw: Record<string, unknown>, notes: string[]): McpServerEntry | undefined {
  const type = raw.type ?? raw.transport;
  if (type === 'sse' || (typeof raw.url === 'string' && type === undefined && /\/sse\/?$/.test(raw.url))) {
    notes.push(
      `${name}: left out: it uses the legacy SSE transport, which toolshed does not speak (Streamable HTTP and ` +
        `stdio only)`,
    );
    return undefined;
  }
  const entry: Record<string, unknown> = {};
  for (const key of KEPT) if (raw[key] !== undefined) entry[key] = raw[key];
  if (raw.disabled === true) entry.enabled = false;
  const dropped = Object.keys(raw).filter(
    (key) => !(KEPT as readonly string[]).includes(key) && !['type', 'transport', 'disabled'].includes(key),
  );
  if (dropped.length) notes.push(`${name}: left out ${dropped.join(', ')} (no toolshed meaning)`);
  if (entry.command === undefined && entry.url === undefined) {
    notes.push(`${name}: left out: it has neither a command nor a url`);
    return undefined;
  }
  return entry as McpServerEntry;
}

/**
 * Reads the `mcpServers` of a desktop client's config; throws CONFIG_INVALID naming `file` when there are none to read.
 */
export function importClaudeDesktop(text: string, file: string): ImportedServers {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file}: not JSON: ${(error as Error).message}`, { file });
  }
  const block = isRecord(parsed) ? parsed.mcpServers : undefined;
  if (!isRecord(block))
    throw new ConfigError(`${file}: no "mcpServers" object to import`, {
      file,
      pointer: '/mcpServers',
      expected: 'an object',
    });
  const servers: Record<string, McpServerEntry> = {};
  const notes: string[] = [];
  for (const [name, raw] of Object.entries(block)) {
    if (!NAME.test(name)) {
      notes.push(`${JSON.stringify(name)}: left out: toolshed server names are letters, digits, _ and - (at most 48)`);
      continue;
    }
    if (!isRecord(raw)) {
      notes.push(`${name}: left out: not an object`);
      continue;
    }
    const entry = importOne(name, raw, notes);
    if (entry) servers[name] = entry;
  }
  return { servers, notes };
}
