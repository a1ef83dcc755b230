/**
 * toolshed's public API. Everything else is internal: every type below is declared in a types-only file
 * (test/package/public-types.test.ts).
 */
export { createToolHost } from './host/host.js';
export type { ToolHost, ToolHostOptions, DefinitionsOptions, ViewOptions } from './host/tool-host.js';
export type {
  DispatchOptions,
  ToolHooks,
  ToolCall,
  CallResult,
  BeforeCallResult,
  AfterCallResult,
  CallHop,
  CallChain,
  Approver,
  ApprovalRequest,
  ApprovalDecision,
  ApprovalReason,
  ApprovalSettled,
  SearchReport,
  EmbeddingsReport,
  AuditReport,
  BreakerReport,
  CallRecord,
  SessionReport,
  LogLevel,
  ElicitRequest,
  ElicitResult,
  ElicitValue,
  Elicitor,
  Sampler,
  SamplingRequest,
  SamplingResult,
  Identity,
  CallerIdentity,
  CredentialRequest,
  CredentialProvider,
  RequestRefusal,
} from './call/public-types.js';
export type { CallOutcome, ContentBlock, RichContent } from '../boundary/outcome.js';
export type {
  HostReport,
  PluginReport,
  ToolReport,
  Enforcement,
  EnforcedBy,
  NotEnforced,
  ProtectionReport,
} from './explain/public-types.js';
export type {
  ToolState,
  HiddenLayer,
  Availability,
  VerdictSource,
  SchemaRewriter,
  RewriteContext,
  ToolInfo,
  Clock,
} from './expose/public-types.js';
export type { ManifestSource, ToolConflict } from './load/public-types.js';
export type { HostEvents } from './host/events.js';
export type {
  ToolshedConfig,
  PluginEntry,
  SearchConfig,
  Embedder,
  StateConfig,
  McpServerEntry,
  McpListingLimits,
  McpProtocolChoice,
  DefinitionChanges,
  ResolvedConfig,
  ResolvedSearch,
  HostLimits,
  BreakerLimits,
  McpOAuthSettings,
  McpCredentials,
  ServeAuthConfig,
  AccessRule,
  AccessQuota,
  AuditConfig,
} from './config/public-types.js';
export type {
  DefinitionChange,
  ConnectionReport,
  ConnectionState,
  ServerProtections,
  ServerLogEntry,
  ServerAuth,
} from './runners/connection-report.js';
export type { Protections } from './runners/protections.js';
export type { Tier } from '../boundary/tier.js';
export type { StateStore } from './state/store-contract.js';
export type { SchemaDialect } from './schema/schema-dialect.js';
export type {
  DefinitionFormat,
  ToolDefinition,
  ToolsByFormat,
  OpenAITool,
  ResponsesTool,
  AnthropicTool,
  AnthropicCustomTool,
  AnthropicToolSearchTool,
  GeminiTool,
  GeminiFunctionDeclaration,
  McpTool,
} from './providers/index.js';
export { FORMATS } from './providers/index.js';
export {
  ToolshedError,
  ConfigError,
  PluginError,
  ToolsetError,
  HOST_ERROR_CODES,
  TOOL_ERROR_CODES,
  SANDBOX_ERROR_CODES,
  type ErrorCode,
  type HostErrorCode,
  type ToolErrorCode,
  type SandboxErrorCode,
} from '../boundary/errors.js';
export { TOOLSHED_VERSION, PLUGIN_API_VERSION } from '../boundary/version.js';
