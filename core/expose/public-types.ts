/**
 * What an embedder sees of the expose stage: each tool's state and why it is hidden, availability,
 * tool search's report, the clock checks are timed by, and the schema rewriters it may add (which
 * see a read-only view of each tool, never its plugin's runner). Types only, importing only public
 * types, so the package's declarations stop here.
 */
import type { DescriptionPart, Icon, JsonSchema, ToolAnnotations } from '../../boundary/plugin-api.js';
import type { ToolConflict } from '../load/public-types.js';
import type { ToolDefinition } from '../providers/types.js';

export type { Clock } from '../state/clock.js';

/**
 * How a custom check's verdict was obtained: 'probe' = just ran, 'cache' = within TTL, 'grace' = a failure masked by a
 * recent success.
 */
export type VerdictSource = 'probe' | 'cache' | 'grace';

/** Why a tool is or is not available. */
export interface Availability {
  ok: boolean;
  reason?: string;
  /** the requirement that decided it */
  kind?:
    | 'env'
    | 'bins'
    | 'platforms'
    | 'check'
    | 'tools'
    | 'permissions'
    | 'breaker'
    | 'connection'
    | 'changed'
    | 'definition';
  /** how the custom check's verdict was obtained */
  via?: VerdictSource;
  maskedReason?: string;
}

/** Where in the pipeline a tool was hidden. */
export type HiddenLayer = 'load' | 'selection' | 'availability' | 'schema';

/** Every registered tool's state, for explain. */
export interface ToolState {
  name: string;
  plugin: string;
  toolset: string;
  exposed: boolean;
  layer?: HiddenLayer;
  reason?: string;
  availability?: Availability;
  /** guard findings and masked failures */
  warnings: string[];
  conflict?: ToolConflict;
  /** exposed and callable, but left out of definitions() until a search loads it for a session */
  deferred?: boolean;
}

/** A registered tool as a schema rewriter sees it: what it declared and where it comes from, read-only. */
export interface ToolInfo {
  readonly name: string;
  /** its plugin's package name (`mcp:<server>` for an MCP server's tool) */
  readonly plugin: string;
  readonly toolset: string;
  /** the description parts as declared (conditional parts unresolved) */
  readonly description: readonly DescriptionPart[];
  readonly parameters: Readonly<JsonSchema>;
  /** as declared ({} when none) */
  readonly annotations: Readonly<ToolAnnotations>;
  /** its human-readable name for clients, when it declares one */
  readonly title?: string;
  /** its icons for clients, when it declares any */
  readonly icons?: readonly Readonly<Icon>[];
  /** its result's JSON Schema (root `type: "object"`), when it declares one */
  readonly outputSchema?: Readonly<JsonSchema>;
  /** valid argument sets it declares (checked against `parameters` at load) */
  readonly examples?: readonly Readonly<Record<string, unknown>>[];
  /** the tool declared it may be called from inside execute_code (`codeCallable: true`) */
  readonly codeCallable: boolean;
  /** the tool declared it may run long (`longRunning: true`): MCP clients may call it as a task */
  readonly longRunning: boolean;
  /** its plugin's trust: 'trusted' runs in the thread tier, 'untrusted' in its own process */
  readonly trust: 'trusted' | 'untrusted';
  /** an MCP server tool's `_meta`, as listed */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** The tools a schema rewriter may see. */
export interface RewriteContext {
  /** the exposed definitions by name, with the rewrites before this one applied */
  exposed: ReadonlyMap<string, ToolDefinition>;
  /** every registered tool (exposed or not), by name */
  records: ReadonlyMap<string, ToolInfo>;
  /** exposed tools that are deferred (listed only once a search loads them) */
  deferred: ReadonlySet<string>;
}

/**
 * A definitions step that rebuilds one tool's schema from live facts (the
 * execute_code rebuild plugs in here). Returning `{ hidden }` hides the tool.
 * @example
 * const rewriter: SchemaRewriter = {
 *   pure: true,
 *   appliesTo: (tool) => tool.name === 'search',
 * rewrite: async (definition) => ({ definition: { ...definition, description: `${definition.description} (beta)` } }),
 * };
 */
export interface SchemaRewriter {
  /**
   * True when `rewrite` depends only on its arguments and settings fixed for the host's life: a
   * recompute in which no verdict changed then keeps its last output instead of asking again.
   */
  pure?: boolean;
  appliesTo(tool: ToolInfo): boolean;
  rewrite(
    definition: ToolDefinition,
    context: RewriteContext,
  ): Promise<{ definition: ToolDefinition } | { hidden: string }>;
}
