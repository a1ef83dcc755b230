/**
 * The plugin authoring API, published as `toolshed/plugin` (plugin.ts, which adds
 * createTestContext). A plugin need not import it: `definePlugin` only adds types to a
 * plain object. toolshed's own modules import the API from here, so the context builder
 * and the test context can use its types without importing the entry back.
 */

/** A `process.platform` value, spelled out so that a plugin's types need no @types/node. */
export type Platform =
  | 'aix'
  | 'android'
  | 'cygwin'
  | 'darwin'
  | 'freebsd'
  | 'haiku'
  | 'linux'
  | 'netbsd'
  | 'openbsd'
  | 'sunos'
  | 'win32';

/** The members of an abort signal a handler uses, for a plugin compiled without DOM or Node types. */
export interface MinimalAbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * `ctx.signal`'s type: the global `AbortSignal` where the plugin's types declare one
 * (@types/node or lib.dom, so it can be passed to `fetch`), else {@link MinimalAbortSignal}.
 */
export type ToolAbortSignal = typeof globalThis extends { AbortSignal: { prototype: infer S } }
  ? S
  : MinimalAbortSignal;

import type { StandardSchemaV1 } from './standard-schema.js';

export type { StandardJSONSchemaV1, StandardSchemaV1 } from './standard-schema.js';

/** A JSON Schema object (draft 2020-12 or draft-07 keywords). */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * What a tool's `parameters` may be: a JSON Schema object, or a Standard Schema object (zod 4,
 * valibot, ArkType…), which toolshed converts to JSON Schema in the plugin's own tier and runs on
 * the arguments before the handler (docs/plugins.md, "Schemas with zod or valibot").
 */
export type ToolParameters = JsonSchema | StandardSchemaV1;

/**
 * A handler's arguments for `parameters` of type `P`: a Standard Schema's output type, else `any` (a JSON Schema says
 * nothing to TypeScript).
 */
export type ArgumentsOf<P> = P extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<P> : any;

/** A conditional description part, resolved against the tools finally exposed. */
export type DescriptionPart = string | { ifAvailable: string[]; text: string } | { ifMissing: string[]; text: string };

/** Declarative requirements, evaluated by the host without running plugin code. */
export interface Requires {
  /** environment variables that must be present and non-empty */
  env?: string[];
  /** executables that must be found on PATH */
  bins?: string[];
  /** other tools that must be exposed */
  tools?: string[];
  /** `process.platform` values this tool supports */
  platforms?: Platform[];
}

/** Permissions a plugin requests; the operator's `grant` decides what it gets. */
export interface Permissions {
  network?: boolean;
  env?: string[];
  fsRead?: string[];
  fsWrite?: string[];
  /**
   * tools (or toolsets) this plugin's `ctx.callTool` may reach besides its own; untrusted plugins get only what is also
   * granted
   */
  callTools?: string[];
  /**
   * Folders asked for by what they are for, not where: the operator chooses each one in the
   * config (`grant: { folders: { notes: '~/notes' } }`) and the plugin finds it in
   * `ctx.roots.folders.notes`. Keys: `^[a-zA-Z0-9_-]{1,64}$`.
   * @example
   * permissions: { folders: { notes: { access: 'write', description: 'Where the notes are kept' } } }
   */
  folders?: Record<string, FolderRequest>;
}

/** A folder a plugin asks for by its purpose (`Permissions.folders`). */
export interface FolderRequest {
  /** `read`: read-only; `write`: read and write */
  access: 'read' | 'write';
  /** what it is for, shown to the operator by `explain` */
  description?: string;
}

/** What the operator grants a plugin (config `grant`): permissions, with each purpose-named folder as a path. */
export interface Grant extends Omit<Permissions, 'folders'> {
  /** the folder chosen for each purpose the plugin asks for, relative to the config file */
  folders?: Record<string, string>;
}

/** Per-tool limits; the host's config limits apply where these are absent. */
export interface ToolLimits {
  timeoutMs?: number;
  maxResultChars?: number;
  /** longest raw JSON arguments accepted, in bytes; at most the host's `limits.maxArgsBytes` */
  maxArgsBytes?: number;
}

/** The limits of one execute_code script. */
export interface CodeLimits {
  timeoutMs: number;
  memoryMb: number;
  maxToolCalls: number;
  maxOutputChars: number;
}

/** A tool callable from execute_code, as a script gets it: its exposed name, corrected description and schema. */
export interface CodeCallableTool {
  name: string;
  description: string;
  parameters: JsonSchema;
  /**
   * its declared result schema (JSON Schema 2020-12), when it has one: `tools.<name>()` then resolves to that object
   */
  outputSchema?: JsonSchema;
}

/** What `ctx.sandboxTools()` returns: the tools code execution may call now, and its limits. */
export interface CodeCallableTools {
  tools: CodeCallableTool[];
  limits: CodeLimits;
  /**
   * Present when some of `tools` are deferred (config `defer`): the host tool that
   * `tools.search(query, limit?)` inside the sandbox calls to find them.
   */
  searchTool?: string;
}

/** One path that stays read-only to the model's tools inside a write root, and why. */
export interface ProtectedPath {
  /**
   * `path`: an absolute real path, protected itself and everything below it.
   * `name`: one or more trailing segments (`.toolshedrc`, `.git/hooks`), protected wherever
   * they appear (at any depth), itself and everything below it; it need not exist.
   */
  kind: 'path' | 'name';
  /** the absolute path (`kind: 'path'`) or the segments joined with `/` (`kind: 'name'`) */
  value: string;
  /** why, in words: "the config in use", "git runs what it names" */
  why: string;
  /**
   * For a `name`: the names of its children that stay writable (for `.git`, what git add,
   * commit and branch write: `objects`, `refs`, `index`, …), each with everything below it.
   * The name itself and its other children stay protected.
   */
  except?: readonly string[];
}

/**
 * The folders a plugin's file access is confined to, as absolute real paths: its own
 * requested `fsRead`/`fsWrite` (relative to the workspace root) and what the operator
 * granted it (relative to the config file). A write root may also be read.
 */
export interface FileRoots {
  read: readonly string[];
  write: readonly string[];
  /** the folders granted by purpose (`permissions.folders`), as absolute real paths; a purpose not granted is absent */
  folders?: Readonly<Record<string, string>>;
  /**
   * What stays read-only even inside `write` (a config file, hook modules, plugin code,
   * `.git` but what git add/commit write, `.npmrc`, shell rc files, the config's `protect`),
   * existing or not: a write there, or creating one, is refused with
   * PERMISSION_DENIED naming the path and why (see `protectedBy` in toolshed's sandbox).
   */
  protect?: readonly ProtectedPath[];
}

/** What a handler or check receives besides its arguments. */
export interface ToolContext {
  /** aborted on timeout or when the caller cancels */
  signal: ToolAbortSignal;
  /** only the environment variables granted to this plugin */
  env: Readonly<Record<string, string>>;
  /**
   * The secrets of the caller this call is made for, as the tool declares them (`ToolSpec.secrets`),
   * frozen; `{}` in checks and in tools that declare none. They belong to this call: the next call
   * (another caller's, perhaps) gets its own.
   */
  secrets: Readonly<Record<string, string>>;
  /**
   * the workspace root (config `root`, `--root`, or the host's working directory): resolve relative paths against it
   */
  cwd: string;
  /**
   * Where this plugin may read and write files. The process tier's sandbox enforces it;
   * in the thread tier nothing does, so a trusted plugin that touches files checks every
   * path against it itself (the first-party file tools do).
   */
  roots: FileRoots;
  /** the operator's options for this plugin (the `options` of its config entry), frozen; `{}` when none */
  options: Readonly<Record<string, unknown>>;
  /**
   * In a handler, the longest result this call may return, in characters: the tool's
   * `limits.maxResultChars`, at most the host's. A longer one is cut and marked, so a tool that
   * returns JSON makes its own fit (a cut object is no JSON). Absent in an availability check.
   */
  maxResultChars?: number;
  /** the caller's session id, when it gave one */
  sessionId?: string;
  /**
   * This plugin's state for the caller's session (JSON values, kept in the host's state store, so
   * every replica of a fleet sees them). A call without a session id gets state of its own that
   * lives only for that call and the calls it makes through `callTool`. See
   * docs/plugins.md, "Session state", for the limits and the errors.
   */
  session: SessionState;
  /**
   * A log line for the operator (never sent to the model), at `level` (MCP's logging levels;
   * default 'info', anything else is taken as 'info'). `toolshed serve` sends it to the MCP
   * client that made the call as a logging notification.
   */
  log(message: string, level?: LogLevel): void;
  /** progress for the caller (MCP progress notifications) */
  progress(done: number, total?: number): void;
  /** calls another tool through the host's full dispatch pipeline */
  callTool(name: string, args?: unknown): Promise<unknown>;
  /**
   * The tools callable from execute_code right now (config `codeExecution.tools`, or tools
   * flagged `codeCallable: true`, intersected with what is exposed) and the code-execution
   * limits. For code-execution plugins; rejects inside availability checks.
   */
  sandboxTools(): Promise<CodeCallableTools>;
}

/** What `ctx.session.set`'s third argument may say. */
export interface SessionSetOptions {
  /** how long the value lives, in ms (default and cap: the host's `state.sessionTtlMs`) */
  ttlMs?: number;
}

/**
 * `ctx.session`: a plugin's own JSON values for the caller's session. Keys are 1 to 256
 * characters; a value is at most 256 KiB of JSON text, and all of a plugin's values in one session
 * at most 1 MiB. An operation outside those limits (or on a value JSON cannot hold, or after the
 * call ended) rejects with an Error whose `code` is `STATE_REFUSED`; one the state store could not
 * carry out (it is unreachable) with `STATE_UNAVAILABLE`. Values go through JSON: what `get`
 * returns is what `JSON.parse(JSON.stringify(value))` gives.
 * @example
 * const seen = ((await ctx.session.get('seen')) as number | undefined) ?? 0;
 * await ctx.session.set('seen', seen + 1, { ttlMs: 600_000 });
 */
export interface SessionState {
  /** the value at `key`, or undefined when there is none (or it expired) */
  get(key: string): Promise<unknown>;
  /** stores `value` (any JSON value) at `key` */
  set(key: string, value: unknown, options?: SessionSetOptions): Promise<void>;
  /** removes the value at `key` (nothing when there is none) */
  delete(key: string): Promise<void>;
}

/**
 * What a tool declares about its behaviour, as MCP tool annotations. They are
 * hints for clients and for approval rules (`approve: { destructive: true }`),
 * not guarantees: nothing enforces them. MCP's defaults apply when absent:
 * a tool is assumed to write (readOnlyHint false), destructively
 * (destructiveHint true), not idempotently, to an open world.
 */
export interface ToolAnnotations {
  /** a human-readable title for the tool */
  title?: string;
  /** the tool does not modify its environment */
  readOnlyHint?: boolean;
  /** the tool may perform destructive updates (meaningful when readOnlyHint is false) */
  destructiveHint?: boolean;
  /** calling it again with the same arguments has no additional effect */
  idempotentHint?: boolean;
  /** the tool interacts with an open world of external entities (the web, other people) */
  openWorldHint?: boolean;
}

/** A log line's level: MCP's log levels (RFC 5424 severities), least severe first. */
export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/**
 * An icon for a tool, as MCP's `Icon`. `src` is an `https:` URL or a `data:` URI of an image
 * (`data:image/…`); anything else (`http:`, `file:`, `javascript:`, a relative path) is
 * PLUGIN_INVALID at load, since a client fetches or renders it as it is.
 */
export interface Icon {
  src: string;
  /** e.g. `image/png`, `image/svg+xml` */
  mimeType?: string;
  /** e.g. `['48x48']`, `['any']` for a scalable icon */
  sizes?: string[];
  /** the theme the icon is drawn for */
  theme?: 'light' | 'dark';
}

/** A check's verdict: `false` or `{ ok: false, reason }` hides the tool. */
export type CheckResult = boolean | { ok: boolean; reason?: string };

/** A handler's result: a string as is, or a JSON value, or MCP-style text content. */
export type ToolResult = string | number | boolean | null | object | { content: Array<{ type: 'text'; text: string }> };

/** One tool of a plugin; `Args` its handler's arguments, `P` its parameters' type. */
export interface ToolSpec<Args = any, P extends ToolParameters = ToolParameters> {
  /** `^[a-zA-Z0-9_-]{1,64}$` */
  name: string;
  /** the toolset this tool belongs to; defaults to the plugin's short name */
  toolset?: string;
  description: string | DescriptionPart[];
  /**
   * The arguments' schema: JSON Schema, or a Standard Schema object (zod, valibot…) whose
   * output type then types the handler's `args`.
   */
  parameters: P;
  /**
   * The schema of the handler's result: JSON Schema or a Standard Schema object, whose root must
   * be `type: "object"`. The handler must then return such an object: it is validated after
   * every call (TOOL_RESULT_INVALID when it does not match) and `toolshed serve` sends it as
   * `structuredContent`; execute_code's declaration types the tool's result by it.
   */
  outputSchema?: JsonSchema | StandardSchemaV1;
  /** a human-readable name for clients to show (MCP's tool `title`); the model sees `name` */
  title?: string;
  /** icons for clients to show (MCP's tool `icons`) */
  icons?: Icon[];
  /**
   * Valid argument sets, each checked against `parameters` at load (PLUGIN_INVALID naming the one
   * that is not). Anthropic's format sends them as `input_examples`; formats without such a field
   * get them in the description (docs/plugins.md, "Examples").
   */
  examples?: Record<string, unknown>[];
  requires?: Requires;
  check?: (ctx: ToolContext) => CheckResult | Promise<CheckResult>;
  handler: (args: Args, ctx: ToolContext) => ToolResult | Promise<ToolResult>;
  limits?: ToolLimits;
  /** callable from inside execute_code's code (as `tools.<name>(args)`); default false */
  codeCallable?: boolean;
  /**
   * The old name of `codeCallable`, accepted until toolshed 2. Giving both with different values is PLUGIN_INVALID.
   * @deprecated use `codeCallable`
   */
  sandbox?: boolean;
  /** behaviour hints (MCP tool annotations), passed to MCP clients and used by `approve` */
  annotations?: ToolAnnotations;
  /**
   * Secrets of the caller this tool acts for (a personal API token, say): for each call made for an
   * identity the host asks its credentials provider for each one and the handler finds them in
   * `ctx.secrets`, for that call only. A call for no identity, or one the provider has no secret
   * for, fails with CREDENTIALS_UNAVAILABLE before the handler runs (docs/plugins.md, "Secrets of the caller").
   * Names: `^[A-Za-z_][A-Za-z0-9_]{0,63}$`.
   * @example
   * secrets: ['GITHUB_TOKEN'], handler: async (args, ctx) => listIssues(ctx.secrets.GITHUB_TOKEN)
   */
  secrets?: string[];
  /**
   * the tool may run long: `toolshed serve` lets an MCP client call it as a task (MCP 2025-11-25
   * `execution.taskSupport: 'optional'`), polled and cancelled apart from the call's request; default false
   */
  longRunning?: boolean;
}

/** A named group of tools that can include other toolsets. */
export interface ToolsetSpec {
  description?: string;
  includes?: string[];
  /** tool names added to this toolset directly */
  tools?: string[];
}

/** The default export of a toolset package. */
export interface PluginSpec {
  apiVersion: 1;
  toolsets?: Record<string, ToolsetSpec>;
  permissions?: Permissions;
  tools?: ToolSpec[];
}

/** `tools` typed element by element from each tool's parameters (see definePlugin). */
export type TypedTools<P extends readonly ToolParameters[]> = { [K in keyof P]: ToolSpec<ArgumentsOf<P[K]>, P[K]> };

/** `unknown` when some tool's parameters are a Standard Schema object; otherwise a type no plugin matches. */
type WithStandardSchema<P extends readonly ToolParameters[]> = [Extract<P[number], StandardSchemaV1>] extends [never]
  ? { tools: never }
  : unknown;

/**
 * Identity helper that types a plugin object. A tool whose `parameters` is a Standard Schema
 * object (zod, valibot…) gets its handler's `args` typed from the schema's output.
 * @example
 * export default definePlugin({ apiVersion: 1, tools: [{ name: 'ping', description: 'Ping',
 *   parameters: { type: 'object' }, handler: () => 'pong' }] });
 * @example
 * export default definePlugin({ apiVersion: 1, tools: [{ name: 'greet', description: 'Greets someone',
 *   parameters: z.object({ name: z.string() }), handler: ({ name }) => `Hello, ${name}` }] });
 */
export function definePlugin<const P extends readonly ToolParameters[]>(
  plugin: Omit<PluginSpec, 'tools'> & { tools: TypedTools<P> } & WithStandardSchema<P>,
): Omit<PluginSpec, 'tools'> & { tools: TypedTools<P> };
export function definePlugin<const T extends PluginSpec>(plugin: T): T;
export function definePlugin(plugin: PluginSpec): PluginSpec {
  return plugin;
}

/** Identity helper that types a single tool: its handler's `args` from a Standard Schema's output, or `Args`. */
export function defineTool<const P extends StandardSchemaV1>(
  tool: ToolSpec<StandardSchemaV1.InferOutput<P>, P>,
): ToolSpec<StandardSchemaV1.InferOutput<P>, P>;
export function defineTool<Args = any>(tool: ToolSpec<Args>): ToolSpec<Args>;
export function defineTool(tool: ToolSpec): ToolSpec {
  return tool;
}
