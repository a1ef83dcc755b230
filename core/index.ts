/** toolshed's public API. Everything else is internal. */
export { createToolHost, type ToolHost, type ToolHostOptions, type DefinitionsOptions, type ViewOptions } from './host.js';
export type { DispatchOptions } from './call/dispatch.js';
export type { ToolHooks, ToolCall, CallResult, BeforeCallResult, AfterCallResult } from './call/hooks.js';
export type { CallHop, CallChain } from './call/chain.js';
export type { Approver, ApprovalRequest, ApprovalDecision, ApprovalReason } from './call/approval.js';
export type { CallOutcome } from './call/outcome.js';
export type { HostReport, PluginReport, ToolReport } from './explain.js';
export type { ToolState, HiddenLayer, SchemaRewriter } from './expose/pipeline.js';
export type { HostEvents } from './events.js';
export type { Clock } from './expose/check-cache.js';
export type { ToolshedConfig, PluginEntry } from './load/config.js';
export type { DefinitionFormat, ToolDefinition, ToolsByFormat, OpenAITool, ResponsesTool, AnthropicTool, GeminiTool, GeminiFunctionDeclaration, McpTool } from './providers/index.js';
export { FORMATS } from './providers/index.js';
export { ToolshedError, ConfigError, PluginError, ToolsetError, HOST_ERROR_CODES, TOOL_ERROR_CODES, SANDBOX_ERROR_CODES, type ErrorCode, type HostErrorCode, type ToolErrorCode, type SandboxErrorCode } from './errors.js';
export { TOOLSHED_VERSION, PLUGIN_API_VERSION } from './version.js';
export { definePlugin, defineTool } from './plugin.js';
export type * from './plugin.js';
