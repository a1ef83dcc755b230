/**
 * Schema rewriters: the definitions steps that rebuild one tool's schema from
 * live facts (the execute_code rebuild is one; an embedder may add its own).
 * A rewriter sees tools through `ToolInfo`, a frozen data-only view of a
 * registered tool (made in tool-info.ts): no runner, no plugin object, nothing
 * that can run a tool past dispatch, hooks and approval. Public types: this
 * file imports no internal module.
 */
import type { DescriptionPart, JsonSchema, ToolAnnotations } from '../../boundary/plugin.js';
import type { ToolDefinition } from '../providers/types.js';

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
  /** the tool declared it may be called from inside execute_code (`sandbox: true`) */
  readonly callableFromCode: boolean;
  /** its plugin's trust: 'trusted' runs in the thread tier, 'untrusted' in its own process */
  readonly trust: 'trusted' | 'untrusted';
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
 *   rewrite: async (definition) => ({ definition: { ...definition, description: `${definition.description} (beta)` } }),
 * };
 */
export interface SchemaRewriter {
  /**
   * True when `rewrite` depends only on its arguments and settings fixed for the host's life: a
   * recompute in which no verdict changed then keeps its last output instead of asking again.
   */
  pure?: boolean;
  appliesTo(tool: ToolInfo): boolean;
  rewrite(definition: ToolDefinition, context: RewriteContext): Promise<{ definition: ToolDefinition } | { hidden: string }>;
}
