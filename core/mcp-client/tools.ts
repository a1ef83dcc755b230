/**
 * An MCP server's `tools/list` turned into toolshed tool manifests: names
 * made valid for every provider and prefixed when another source's tool
 * already has them (compared folded: `READ_FILE` is `read_file`), names with
 * invisible or look-alike characters refused (core/text/tool-names.ts), the input
 * schema passed on as listed (it is compiled at the tool's first call, so a
 * re-list compiles nothing), descriptions rewritten to name the server's own
 * renamed tools by their new names, MCP annotations kept. An untagged input schema is read as
 * JSON Schema 2020-12, MCP's default since 2025-11-25 (core/schema/schema-dialect.ts).
 */
import { foldName, refusedName, shownName } from '../text/tool-names.js';
import type { ResolvedServer } from './config.js';
import type { JsonSchema, ToolAnnotations, Icon } from '../../boundary/plugin-api.js';
import type { ToolManifest } from '../load/types.js';
import { readDialect, UnknownDialectError, type DialectReading } from '../schema/schema-dialect.js';

/** The annotation keys toolshed knows (MCP's tool annotations); anything else a server sends is left out. */
const ANNOTATIONS = ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** The server's annotations of a tool, with its top-level `title` when the annotations have none. */
function annotations(tool: UpstreamTool): ToolAnnotations {
  const out: Record<string, unknown> = {};
  for (const key of ANNOTATIONS) {
    const value = tool.annotations?.[key];
    if (key === 'title' ? typeof value === 'string' : typeof value === 'boolean') out[key] = value;
  }
  if (out.title === undefined && typeof tool.title === 'string') out.title = tool.title;
  return out as ToolAnnotations;
}

/** A tool as an MCP server lists it (the fields toolshed reads). */
export interface UpstreamTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type?: unknown; [key: string]: unknown };
  outputSchema?: { type?: unknown; [key: string]: unknown };
  annotations?: Record<string, unknown>;
  /** MCP's `execution`: `taskSupport` says whether it must, may or cannot be called as a task */
  execution?: { taskSupport?: unknown; [key: string]: unknown };
  icons?: Icon[];
  /** its `_meta`, when small enough to pass on */
  meta?: Record<string, unknown>;
  /**
   * Set at listing when its text was cut (listing.descriptionChars, listing.definitionChars): the hash of
   * its definition as the server sent it, which its pin is of, so a cut is no change.
   */
  definitionHash?: string;
  /**
   * set with `definitionHash`: the hash an older toolshed pinned it by (definition-pins.ts reads it once, to carry such
   * a pin over)
   */
  legacyHash?: string;
}

/** One tool as the host exposes it, and the name the server knows it by. */
export interface ServerTool {
  upstream: string;
  manifest: ToolManifest;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Why a tool that must be called as a task is not shown where the connection cannot run tasks: a plain call would fail
 * every time.
 */
function taskRequired(why: string): string {
  return `it must be called as a task (execution.taskSupport: 'required'), and ${why}`;
}

/** A name every provider accepts: invalid characters become `_`, at most 64 characters. */
function validName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return cleaned.length ? cleaned : '_';
}

function parameters(schema: UpstreamTool['inputSchema']): JsonSchema {
  return { ...schema, type: 'object' };
}

/**
 * The dialect a server's input schema is read in: its `$schema`, or untagged, MCP's default
 * (2020-12). Undefined for a `$schema` toolshed does not validate: the first call then fails
 * with TOOL_FAILED, naming the supported dialects.
 */
function dialect(schema: JsonSchema): DialectReading | undefined {
  try {
    return readDialect(schema, 'mcp');
  } catch (error) {
    if (error instanceof UnknownDialectError) return undefined;
    throw error;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Replaces whole-word mentions of renamed sibling tools in `text` with their exposed names. */
function renameMentions(text: string, renamed: ReadonlyMap<string, string>): string {
  if (!renamed.size) return text;
  const names = [...renamed.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(`(?<![A-Za-z0-9_-])(${names.join('|')})(?![A-Za-z0-9_-])`, 'g');
  return text.replace(pattern, (name) => renamed.get(name) ?? name);
}

/**
 * The manifests of a server's tools. `taken` holds every name defined before
 * this server (plugins first, then earlier servers in config order); the
 * names chosen here are added to it.
 */
export function serverTools(
  server: ResolvedServer,
  listed: readonly UpstreamTool[],
  taken: Set<string>,
  warnings: string[],
  /** why the connection cannot call a tool as a task; false when it can */
  noTasks: string | false = 'this connection cannot run tasks',
): ServerTool[] {
  const chosen: Array<{ upstream: UpstreamTool; name: string; parameters: JsonSchema }> = [];
  // folded → chosen name, of this server's tools taken so far
  const own = new Map<string, string>();
  // Names taken by other sources collide by their folded form (tool-names.ts): READ_FILE is read_file.
  const folded = new Set([...taken].map(foldName));
  for (const tool of listed) {
    const refused =
      refusedName(tool.name) ??
      (tool.execution?.taskSupport === 'required' && noTasks ? taskRequired(noTasks) : undefined);
    if (refused) {
      warnings.push(`tool ${shownName(tool.name)} left out: ${refused}`);
      continue;
    }
    let name = validName(tool.name);
    if (folded.has(foldName(name)) && server.prefix !== false) name = validName(`${server.prefix}${name}`);
    const twin = own.get(foldName(name));
    if (twin !== undefined) {
      warnings.push(
        `tool ${shownName(tool.name)} left out: its name becomes ${name}, which another of its tools already ` +
          `has${twin === name ? '' : ` (as ${twin}: they differ only in case)`}`,
      );
      continue;
    }
    const schema = parameters(tool.inputSchema);
    own.set(foldName(name), name);
    chosen.push({ upstream: tool, name, parameters: schema });
  }
  for (const name of own.values()) taken.add(name);
  const renamed = new Map(
    chosen
      .filter((c) => c.name !== c.upstream.name && NAME.test(c.upstream.name))
      .map((c) => [c.upstream.name, c.name]),
  );
  return chosen.map(({ upstream, name, parameters: schema }) => {
    const description = renameMentions(upstream.description || upstream.title || upstream.name, renamed);
    const manifest: ToolManifest = {
      name,
      toolset: server.toolset,
      description: [description],
      parameters: schema,
      requires: { env: [], bins: [], tools: [], platforms: [] },
      limits: { timeoutMs: server.timeoutMs },
      codeCallable: server.codeCallable,
      annotations: annotations(upstream),
    };
    if (upstream.title !== undefined) manifest.title = upstream.title;
    if (upstream.icons) manifest.icons = upstream.icons;
    if (upstream.outputSchema) manifest.outputSchema = upstream.outputSchema as JsonSchema;
    if (upstream.meta) manifest.meta = upstream.meta;
    const reading = dialect(schema);
    if (reading) manifest.dialect = reading;
    return { upstream: upstream.name, manifest };
  });
}
