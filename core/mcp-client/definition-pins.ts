/**
 * Definition pins: the defence against an MCP server's "rug pull" (its tools
 * change under the operator's feet). Each tool's definition (everything of it
 * toolshed passes on to a model or a client: title, description, input and
 * output schemas, annotations, execution, icons, `_meta`) is hashed as
 * canonical JSON and pinned, in a file per config and server in the user's
 * private state folder. The server's first listing is pinned whole (trust on
 * first use); after that a tool whose definition differs from its pin, and a
 * tool the accepted listings never had (a rug pull by renaming), is held,
 * served with a warning, or pinned, as the server's `definitionChanges` says,
 * until the operator accepts it (`toolshed accept`, `host.acceptDefinitions`).
 */
import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { canonicalJson } from '../text/canonical-json.js';
import { lineDiff } from '../text/line-diff.js';
import { ensurePrivateDir, readPrivateFile, writePrivateFile } from '../../boundary/private-dir.js';
import type { DefinitionChanges } from '../config/config.js';
import type { UpstreamTool } from './tools.js';
import type { DefinitionChange } from '../runners/connection-report.js';

/** Characters of a definition's text kept for its diff (the hash covers all of it). */
const MAX_TEXT_CHARS = 32_000;
/** Lines of a diff shown, and characters of each. */
const MAX_DIFF_LINES = 60;
const MAX_LINE_CHARS = 240;

/** The reason a held tool is hidden with: its definition changed, or the tool is new. */
export const HELD_REASON = 'definition changed since it was accepted';
export const ADDED_REASON = "new since its server's tools were accepted";

/** One pinned tool on disk. */
interface Pin {
  /** sha256 of the definition's canonical JSON */
  hash: string;
  /** the definition as text (capped), for the diff of a later change */
  text: string;
  acceptedAt: string;
  /**
   * 2: the hash covers every field passed on (definitionOf). Absent: a pin of an older toolshed,
   * of the title, description, input schema and annotations only (legacyDefinitionOf).
   */
  scheme?: 2;
}

/** A pin file: one config's one server. */
interface PinFile {
  version: 1;
  config: string;
  server: string;
  /** when the server's first listing was pinned (absent in files of an older toolshed) */
  createdAt?: string;
  tools: Record<string, Pin>;
}

/** A change as the pins see it: the exposed name is the caller's to add. */
type PinnedChange = Omit<DefinitionChange, 'name'>;

/** What of a tool is pinned: everything toolshed passes on to a model or a client (its name is the pin's key). */
function definitionOf(tool: UpstreamTool): Record<string, unknown> {
  return {
    title: tool.title ?? null,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema ?? null,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
    execution: tool.execution ?? null,
    icons: tool.icons ?? null,
    meta: tool.meta ?? null,
  };
}

/** What a pin of an older toolshed (no `scheme`) is of. */
function legacyDefinitionOf(tool: UpstreamTool): Record<string, unknown> {
  return {
    title: tool.title ?? null,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema ?? null,
    annotations: tool.annotations ?? null,
  };
}

/**
 * Control and format characters of a server's text written as `\u{…}`, so a diff cannot hide or reorder lines on a
 * terminal.
 */
function printable(line: string): string {
  return line.replace(/[\p{Cc}\p{Cf}]/gu, (char) => `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`);
}

/** A definition as lines a person can diff: the description as written, the schema and annotations as indented JSON. */
function definitionText(tool: UpstreamTool): string {
  const sorted = (value: unknown) => {
    try {
      return JSON.stringify(JSON.parse(canonicalJson(value ?? null)), null, 2);
    } catch {
      return '(nested too deep to show)';
    }
  };
  const text = [
    ...(tool.title !== undefined ? [`title: ${tool.title}`] : []),
    'description:',
    ...String(tool.description ?? '')
      .split('\n')
      .map((line) => `  ${line}`),
    `inputSchema: ${sorted(tool.inputSchema)}`,
    ...(tool.outputSchema !== undefined ? [`outputSchema: ${sorted(tool.outputSchema)}`] : []),
    `annotations: ${sorted(tool.annotations)}`,
    ...(tool.execution !== undefined ? [`execution: ${sorted(tool.execution)}`] : []),
    ...(tool.icons !== undefined ? [`icons: ${sorted(tool.icons)}`] : []),
    ...(tool.meta !== undefined ? [`_meta: ${sorted(tool.meta)}`] : []),
  ].join('\n');
  return text.length > MAX_TEXT_CHARS
    ? `${text.slice(0, MAX_TEXT_CHARS)}\n… (cut at ${MAX_TEXT_CHARS} characters)`
    : text;
}

/** The diff of two definition texts, capped and safe to print. */
function shortDiff(before: string, after: string): string[] {
  const lines = lineDiff(before, after, 2).map((line) =>
    printable(line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line),
  );
  return lines.length > MAX_DIFF_LINES
    ? [...lines.slice(0, MAX_DIFF_LINES), `… (${lines.length - MAX_DIFF_LINES} more lines)`]
    : lines;
}

/** A listed tool's definition: its hash, and its text made only when a pin or a diff needs it. */
interface Listed {
  hash: string;
  tool: UpstreamTool;
}

function hashOf(definition: Record<string, unknown>): string {
  let text: string;
  try {
    text = canonicalJson(definition);
  } catch {
    // Nested past the stack: such a schema never compiles, so the tool is not served anyway.
    text = `unhashable:${String(definition.description)}`;
  }
  return createHash('sha256').update(text).digest('hex');
}

/** The hash a tool's pin is of: every field passed on (definitionOf) as canonical JSON. */
export function definitionHash(tool: UpstreamTool): string {
  return hashOf(definitionOf(tool));
}

/** The hash an older toolshed pinned a tool by (title, description, input schema, annotations). */
export function legacyDefinitionHash(tool: UpstreamTool): string {
  return hashOf(legacyDefinitionOf(tool));
}

/** A new tool's definition as the lines of a diff: all of it added. */
function addedDiff(tool: UpstreamTool): string[] {
  return shortDiff('', definitionText(tool)).filter((line) => line.startsWith('+') || line.startsWith('…'));
}

/**
 * A tool's definition hashed (as sent, when listing cut its text); memoized per listed object (a rebuild that did not
 * re-list hashes nothing).
 */
const seen = new WeakMap<UpstreamTool, Listed>();
function fingerprint(tool: UpstreamTool): Listed {
  let found = seen.get(tool);
  if (!found) {
    found = { hash: tool.definitionHash ?? definitionHash(tool), tool };
    seen.set(tool, found);
  }
  return found;
}

/** Where a config's server keeps its pins: `<state>/mcp-definitions/<hash of config and server>.json`. */
export function pinFile(stateDir: string, config: string, server: string): string {
  return path.join(
    stateDir,
    'mcp-definitions',
    `${createHash('sha256').update(`${config}\0${server}`).digest('hex').slice(0, 32)}.json`,
  );
}

/** One server's pins: read from its file when that changed, written through a temp file and a rename. */
export class DefinitionPins {
  /** by the server's tool name (a Map: a tool may be called `__proto__` or `constructor`) */
  private pins = new Map<string, Pin>();
  /** the file's identity when last read, so an unchanged file is not parsed again */
  private stamp = '';
  /** per tool, its definition's plain JSON when last hashed, and that hash */
  private readonly plain = new Map<string, { text: string; listed: Listed }>();
  /** the last listing's definitions, by the server's tool name */
  private latest = new Map<string, Listed>();
  /**
   * the last diff worked out per tool, with the pinned and listed hashes it is of (one per tool: a server changing a
   * tool over and over keeps one)
   */
  private readonly diffs = new Map<string, { key: string; diff: string[] }>();
  /** per tool, the listed hash of the change last reported */
  private readonly reported = new Map<string, string>();
  /** the changes of the last review */
  changes: PinnedChange[] = [];
  /** why pins are kept in memory only, or could not be read (for explain) */
  problem: string | undefined;
  /** the file could not be read: nothing is written over it until it can */
  private unreadable = false;
  /**
   * Whether a listing of this server was accepted before (the pin file exists, or this run
   * pinned one): until then the first listing is pinned whole; after, a new tool is an addition.
   */
  private known = false;
  /** when the first listing was pinned */
  private createdAt = new Date().toISOString();

  constructor(
    private readonly server: string,
    private readonly mode: DefinitionChanges,
    private readonly config: string,
    private readonly file: string | undefined,
  ) {
    if (!file) this.problem = 'definitions are pinned for this run only: there is no user state folder to keep them in';
  }

  /**
   * Compares a listing with the pins: the server's first listing is pinned whole; after it, in
   * 'accept' mode a changed or new tool is pinned, otherwise it becomes a change (`added` for a
   * tool no accepted listing had). Returns the changes not reported before (the host emits them).
   */
  review(listed: readonly UpstreamTool[]): PinnedChange[] {
    this.load();
    this.latest = new Map(listed.map((tool) => [tool.name, this.fingerprint(tool)]));
    // What is kept per tool is kept only for tools the server still lists: renaming tools grows nothing.
    for (const kept of [this.plain, this.diffs, this.reported])
      for (const name of kept.keys()) if (!this.latest.has(name)) kept.delete(name);
    const changes: PinnedChange[] = [];
    // The first listing is trust on first use; it is written even when empty, so a tool listed later is an addition.
    const first = !this.known;
    let dirty = first;
    this.known = true;
    for (const [tool, now] of this.latest) {
      const pin = this.pins.get(tool);
      if (pin?.hash === now.hash) continue;
      // A pin of an older toolshed that still matches what it covered: the fields it did not cover are pinned as they
      // are now.
      if (pin && pin.scheme === undefined && pin.hash === (now.tool.legacyHash ?? legacyDefinitionHash(now.tool))) {
        this.pins.set(tool, { hash: now.hash, text: definitionText(now.tool), acceptedAt: pin.acceptedAt, scheme: 2 });
        dirty = true;
        continue;
      }
      if (first || this.mode === 'accept') {
        this.pins.set(tool, {
          hash: now.hash,
          text: definitionText(now.tool),
          acceptedAt: new Date().toISOString(),
          scheme: 2,
        });
        dirty = true;
        continue;
      }
      if (pin)
        changes.push({
          server: this.server,
          tool,
          kind: 'changed',
          mode: this.mode,
          acceptedAt: pin.acceptedAt,
          diff: this.diff(tool, pin, now),
        });
      else
        changes.push({
          server: this.server,
          tool,
          kind: 'added',
          mode: this.mode,
          acceptedAt: this.acceptedAt(),
          diff: this.diff(tool, undefined, now),
        });
    }
    if (dirty) this.save();
    this.changes = changes;
    return changes.filter((change) => {
      const hash = this.latest.get(change.tool)!.hash;
      if (this.reported.get(change.tool) === hash) return false;
      this.reported.set(change.tool, hash);
      return true;
    });
  }

  /**
   * A listed tool's hash. A re-list sends new objects for the same tools: one whose plain JSON
   * (the server's own key order) is what it was last time keeps its hash, so a storm of
   * re-lists of unchanged tools costs one JSON.stringify per tool, not a canonical hash.
   */
  private fingerprint(tool: UpstreamTool): Listed {
    if (tool.definitionHash) return fingerprint(tool);
    let text: string;
    try {
      text = JSON.stringify([
        tool.title,
        tool.description,
        tool.inputSchema,
        tool.outputSchema,
        tool.annotations,
        tool.execution,
        tool.icons,
        tool.meta,
      ]);
    } catch {
      return fingerprint(tool);
    }
    const last = this.plain.get(tool.name);
    if (last?.text === text) return { hash: last.listed.hash, tool };
    const listed = fingerprint(tool);
    this.plain.set(tool.name, { text, listed });
    return listed;
  }

  /**
   * The diff of a pin (none: a new tool) and a listed definition, worked out once per pair (a held tool is reviewed at
   * every rebuild).
   */
  private diff(tool: string, pin: Pin | undefined, now: Listed): string[] {
    const key = `${pin?.hash ?? 'new'}:${now.hash}`;
    const known = this.diffs.get(tool);
    if (known?.key === key) return known.diff;
    const diff = pin ? shortDiff(pin.text, definitionText(now.tool)) : addedDiff(now.tool);
    this.diffs.set(tool, { key, diff });
    return diff;
  }

  /** When this server's tools were last accepted: the newest pin's time (what a new tool is new since). */
  private acceptedAt(): string {
    let latest = '';
    for (const pin of this.pins.values()) if (pin.acceptedAt > latest) latest = pin.acceptedAt;
    return latest || this.createdAt;
  }

  /** Whether the server listed `tool` in its last listing. */
  lists(tool: string): boolean {
    return this.latest.has(tool);
  }

  /** Pins the listed definitions of `tools` (default: every changed one); returns the changes accepted. */
  accept(tools?: readonly string[]): PinnedChange[] {
    this.load();
    const wanted = tools ? new Set(tools) : undefined;
    const accepted = this.changes.filter((change) => !wanted || wanted.has(change.tool));
    const at = new Date().toISOString();
    for (const change of accepted) {
      const now = this.latest.get(change.tool)!;
      this.pins.set(change.tool, { hash: now.hash, text: definitionText(now.tool), acceptedAt: at, scheme: 2 });
    }
    if (accepted.length) this.save();
    return accepted;
  }

  /** Reads the file when it changed since the last read (another host, or `toolshed accept`, may have written it). */
  private load(): void {
    if (!this.file) return;
    try {
      const info = lstatSync(this.file, { throwIfNoEntry: false });
      const stamp = info ? `${info.ino}:${info.size}:${info.mtimeMs}` : 'none';
      if (stamp === this.stamp) return;
      ensurePrivateDir(path.dirname(this.file));
      const text = readPrivateFile(this.file);
      const parsed = text === undefined ? undefined : (JSON.parse(text) as PinFile);
      const valid = parsed?.version === 1 && parsed.tools && typeof parsed.tools === 'object';
      this.pins = new Map(valid ? Object.entries(parsed.tools) : []);
      if (valid) {
        this.known = true;
        if (typeof parsed.createdAt === 'string') this.createdAt = parsed.createdAt;
      }
      this.stamp = stamp;
      this.problem = undefined;
      this.unreadable = false;
    } catch (error) {
      this.unreadable = true;
      // Pins kept in memory still hold what this run has seen.
      this.problem = `pinned definitions could not be read from ${this.file}: ${(error as Error).message}`;
    }
  }

  private save(): void {
    if (!this.file || this.unreadable) return;
    try {
      ensurePrivateDir(path.dirname(this.file));
      const record: PinFile = {
        version: 1,
        config: this.config,
        server: this.server,
        createdAt: this.createdAt,
        tools: Object.fromEntries(this.pins),
      };
      writePrivateFile(this.file, `${JSON.stringify(record, null, 2)}\n`);
      const info = lstatSync(this.file);
      this.stamp = `${info.ino}:${info.size}:${info.mtimeMs}`;
    } catch (error) {
      this.problem = `pinned definitions could not be written to ${this.file}: ${(error as Error).message}`;
    }
  }
}
