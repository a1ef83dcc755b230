/**
 * Every failure toolshed reports has a stable code. Host-level failures are
 * thrown as `ToolshedError` subclasses; tool-call failures become the JSON
 * error envelope. Codes, causes and fixes are listed in docs/errors.md.
 */

/** Codes of host-level failures (config, plugins, toolsets), thrown as `ToolshedError`. */
export const HOST_ERROR_CODES = [
  'CONFIG_INVALID',
  'CONFIG_UNTRUSTED',
  'PLUGIN_NOT_FOUND',
  'PLUGIN_INVALID',
  'PLUGIN_API_MISMATCH',
  'PLUGIN_IMPORT_FAILED',
  'PLUGIN_LOAD_TIMEOUT',
  'PLUGIN_CHANGED',
  'TOOL_CONFLICT',
  'TOOLSET_UNKNOWN',
  'TOOLSET_CYCLE',
  'ACCESS_DENIED',
  'AUTH_FAILED',
  'USAGE',
] as const;

/** Codes of the tool-call error envelope `{"error","code"}`. */
export const TOOL_ERROR_CODES = [
  'UNKNOWN_TOOL',
  'TOOL_NOT_EXPOSED',
  'INVALID_ARGUMENTS',
  'TOOL_TIMEOUT',
  'TOOL_CANCELLED',
  'TOOL_CRASHED',
  'TOOL_UNREACHABLE',
  'TOOL_FAILED',
  'TOOL_RESULT_INVALID',
  'QUEUE_FULL',
  'PERMISSION_DENIED',
  'CALL_DEPTH_EXCEEDED',
  'CALL_WOULD_DEADLOCK',
  'TOOL_BLOCKED',
  'HOOK_FAILED',
  'APPROVAL_DENIED',
  'APPROVAL_TIMEOUT',
  'HOST_CLOSED',
  'STATE_REFUSED',
  'STATE_UNAVAILABLE',
  'QUOTA_EXCEEDED',
  'CREDENTIALS_UNAVAILABLE',
] as const;

/**
 * Codes execute_code's sandbox puts on a script's errors and on its result
 * (inside the tool's result text, so the model reads them).
 */
export const SANDBOX_ERROR_CODES = [
  'TOOL_BUDGET_EXCEEDED',
  'SANDBOX_TIMEOUT',
  'SANDBOX_ABORTED',
  'SANDBOX_OUT_OF_MEMORY',
  'SANDBOX_STALLED',
  'SANDBOX_CRASHED',
  'SANDBOX_UNAVAILABLE',
] as const;

/** A host-level failure's code. */
export type HostErrorCode = (typeof HOST_ERROR_CODES)[number];

/** A tool-call failure's code. */
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

/** A code execute_code's sandbox reports. */
export type SandboxErrorCode = (typeof SANDBOX_ERROR_CODES)[number];

/** Any code toolshed emits. */
export type ErrorCode = HostErrorCode | ToolErrorCode | SandboxErrorCode;

/** Base class of every error toolshed throws; match on `code`, never on `message`. */
export class ToolshedError extends Error {
  /** Stable machine-readable code. */
  readonly code: ErrorCode;
  /** Structured context (file, pointer, plugin, …) for tools and `--json` output. */
  readonly data: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, data: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolshedError';
    this.code = code;
    this.data = data;
  }

  /** A plain object that survives structured clone and JSON. */
  toJSON(): SerializedError {
    return { name: this.name, code: this.code, message: this.message, data: this.data };
  }
}

/**
 * The config file or object does not match config.schema.json, or cannot be read
 * (CONFIG_INVALID); or it changed since the operator accepted it (CONFIG_UNTRUSTED).
 */
export class ConfigError extends ToolshedError {
  constructor(
    message: string,
    data: { file?: string; pointer?: string; expected?: string; root?: string; fix?: string } = {},
    options?: { cause?: unknown; code?: 'CONFIG_INVALID' | 'CONFIG_UNTRUSTED' },
  ) {
    super(
      options?.code ?? 'CONFIG_INVALID',
      message,
      data,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'ConfigError';
  }
}

/** A plugin could not be found, imported, validated or version-matched. */
export class PluginError extends ToolshedError {
  constructor(
    code:
      | 'PLUGIN_NOT_FOUND'
      | 'PLUGIN_INVALID'
      | 'PLUGIN_API_MISMATCH'
      | 'PLUGIN_IMPORT_FAILED'
      | 'PLUGIN_LOAD_TIMEOUT'
      | 'PLUGIN_CHANGED',
    message: string,
    data: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(code, message, data, options);
    this.name = 'PluginError';
  }
}

/** A toolset name is unknown, or toolsets include each other in a cycle. */
export class ToolsetError extends ToolshedError {
  constructor(code: 'TOOLSET_UNKNOWN' | 'TOOLSET_CYCLE', message: string, data: Record<string, unknown> = {}) {
    super(code, message, data);
    this.name = 'ToolsetError';
  }
}

/** A command-line usage mistake (exit code 2). */
export class UsageError extends ToolshedError {
  constructor(message: string) {
    super('USAGE', message);
    this.name = 'UsageError';
  }
}

/** The shape in which errors cross thread and process boundaries. */
export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  data?: unknown;
  stack?: string;
}

/**
 * An Error carrying a `code`, for failures that cross a worker or process
 * boundary as plain data (see `serializeError`); the host reads the code, never the text.
 */
export function codedError(code: string, message: string, options?: { cause?: unknown }): Error & { code: string } {
  return Object.assign(new Error(message, options), { code });
}

/** Turns anything thrown into a `SerializedError`, keeping name, code, message and data. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) {
    const withCode = error as Error & { code?: unknown; data?: unknown };
    const out: SerializedError = { name: error.name, message: error.message };
    if (typeof withCode.code === 'string') out.code = withCode.code;
    if (withCode.data !== undefined) out.data = safeClone(withCode.data);
    if (error.stack) out.stack = error.stack;
    return out;
  }
  return { name: 'Error', message: typeof error === 'string' ? error : safeStringify(error) };
}

function safeClone(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return safeStringify(value);
  }
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
