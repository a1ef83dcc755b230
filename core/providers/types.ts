/** The provider-neutral tool definition every format is made from. */
import type { Icon, JsonSchema, ToolAnnotations } from '../../boundary/plugin-api.js';
import type { SchemaDialect } from '../schema/schema-dialect.js';

/** A tool as exposed to the model, before any provider's wrapping. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
  /** the tool's behaviour hints, when it declares any; only formats that carry them (mcp) include them */
  annotations?: ToolAnnotations;
  /** the tool declared it may run long; only the mcp format carries it (`execution.taskSupport`) */
  longRunning?: true;
  /** its human-readable name (mcp only) */
  title?: string;
  /** its icons (mcp only) */
  icons?: Icon[];
  /** its result's JSON Schema, root `type: "object"` (mcp sends it; execute_code types the tool's result by it) */
  outputSchema?: JsonSchema;
  /** valid argument sets: anthropic sends them as `input_examples`, openai, responses and gemini in the description */
  examples?: Record<string, unknown>[];
  /** an MCP server's `_meta` of the tool (mcp only) */
  meta?: Record<string, unknown>;
  /**
   * the JSON Schema dialect `parameters` is written in (its `$schema`, or how toolshed read it untagged);
   * every format sends it as 2020-12. Absent: its `$schema`, or the plugin rule, decides
   */
  dialect?: SchemaDialect;
}

/** An OpenAI Chat Completions `tools` entry. */
export interface OpenAITool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema; strict?: boolean };
}

/** An OpenAI Responses API `tools` entry (a flat function tool). */
export interface ResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
}

/** An Anthropic Messages API custom (function) tool; `input_schema` is always an object schema. */
export interface AnthropicCustomTool {
  name: string;
  description: string;
  input_schema: JsonSchema & { type: 'object' };
  /** valid argument sets for the model (Anthropic's tool use examples), when the tool declares any */
  input_examples?: Record<string, unknown>[];
  /**
   * with `search.native`: the tool is sent but kept out of the model's context until Anthropic's tool search finds it
   */
  defer_loading?: true;
}

/** Anthropic's server-side tool search tool, sent first when `search.native` is set and something is deferred. */
export type AnthropicToolSearchTool =
  | { type: 'tool_search_tool_bm25_20251119'; name: 'tool_search_tool_bm25' }
  | { type: 'tool_search_tool_regex_20251119'; name: 'tool_search_tool_regex' };

/**
 * An Anthropic Messages API `tools` entry: a custom tool, or (with `search.native` and
 * something deferred) Anthropic's tool search tool; tell them apart with `'type' in entry`.
 */
export type AnthropicTool = AnthropicCustomTool | AnthropicToolSearchTool;

/** One Gemini function declaration; `parameters` is left out when the tool takes none. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters?: JsonSchema;
}

/** A Gemini `tools` entry: every declaration in one `functionDeclarations` list. */
export interface GeminiTool {
  functionDeclarations: GeminiFunctionDeclaration[];
}

/** An MCP `tools/list` entry; `annotations` when the tool declares any, `execution` when it runs long. */
/** An MCP `tools/list` entry; `title`, `icons`, `outputSchema` and `annotations` when the tool declares them. */
export interface McpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema?: JsonSchema & { type: 'object' };
  icons?: Icon[];
  annotations?: ToolAnnotations;
  /**
   * MCP 2025-11-25: a long-running tool may be called as a task (`toolshed serve` strips it where it offers no tasks)
   */
  execution?: { taskSupport: 'optional' };
  _meta?: Record<string, unknown>;
}

/** The element type of `definitions()` for each format. */
export interface ToolsByFormat {
  openai: OpenAITool;
  responses: ResponsesTool;
  anthropic: AnthropicTool;
  gemini: GeminiTool;
  mcp: McpTool;
}

/** The tool formats `definitions()` can produce. */
export type DefinitionFormat = keyof ToolsByFormat;

/** Every supported format, for validation and help text. */
export const FORMATS: readonly DefinitionFormat[] = ['openai', 'responses', 'anthropic', 'gemini', 'mcp'];

/** Per-format switches; formats that have no such dialect ignore them. */
export interface FormatOptions {
  /** OpenAI strict mode (openai and responses formats) */
  strict?: boolean;
}
