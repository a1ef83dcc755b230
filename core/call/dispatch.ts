/**
 * Dispatch: gate (only exposed tools) → parse → ajv validate → the plugin's
 * tier (timeout, abort, memory) → normalize → cap. Every failure is an
 * outcome with a code; nothing here throws for a tool's failure.
 */
import { compile, problems } from '../schema.js';
import { didYouMean } from '../suggest.js';
import { capText } from '../../sandbox/worker/normalize.js';
import type { Exposure } from '../expose/pipeline.js';
import type { ResolvedConfig } from '../load/config.js';
import type { ToolErrorCode } from '../errors.js';
import type { Registry } from '../expose/registry.js';
import type { ToolRecord } from '../types.js';
import type { CallOutcome, SandboxToolset } from '../../sandbox/protocol.js';
import { codeLimits, sandboxTools } from '../expose/code-execution.js';
import { dropStrictNulls } from './strict-arguments.js';
import type { CallHooks, RunnerFailure } from '../../sandbox/runner.js';

/** Per-call options of `dispatch`. */
export interface DispatchOptions {
  signal?: AbortSignal;
  sessionId?: string;
  /** receives the handler's `ctx.log` lines */
  onLog?(message: string): void;
  /** receives the handler's `ctx.progress` */
  onProgress?(done: number, total?: number): void;
}

/** Nested `ctx.callTool` depth beyond which calls are refused (a tool calling itself forever). */
export const MAX_CALL_DEPTH = 8;

/** A failed outcome with `code`. */
export function failure(code: ToolErrorCode, message: string): CallOutcome {
  return { ok: false, code, message };
}

/** The envelope string of an outcome: the text, or `{"error","code"}`. */
export function envelope(outcome: CallOutcome): string {
  return outcome.ok ? outcome.text : JSON.stringify({ error: outcome.message, code: outcome.code });
}

/** Parses arguments given as an object or a JSON string; bad JSON names the position. */
export function parseArguments(raw: unknown): { ok: true; value: unknown } | { ok: false; outcome: CallOutcome } {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw !== 'string') return { ok: true, value: raw };
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    const message = (error as Error).message;
    return { ok: false, outcome: failure('INVALID_ARGUMENTS', `arguments are not valid JSON: ${message}. Send a JSON object matching the tool's parameters.`) };
  }
}

/** Validates against the tool's own (original) schema, compiled once per tool. */
export function validateArguments(record: ToolRecord, args: unknown): CallOutcome | undefined {
  record.validate ??= compile(record.manifest.parameters);
  if (record.validate(args)) return undefined;
  const list = problems(record.validate.errors);
  const lines = list.map((p) => `${p.pointer || '/'} ${p.message}`);
  return failure('INVALID_ARGUMENTS', `invalid arguments for ${record.name}: ${lines.join('; ')}`);
}

function describeFailure(record: ToolRecord, f: RunnerFailure): CallOutcome {
  switch (f.kind) {
    case 'timeout':
      return failure('TOOL_TIMEOUT', `${record.name} did not finish within ${f.timeoutMs} ms and was stopped`);
    case 'cancelled':
      return failure('TOOL_CANCELLED', `${record.name} was cancelled by the caller`);
    case 'queue-full':
      return failure('QUEUE_FULL', `${record.name} is busy: its plugin already has the maximum of ${f.limit} calls waiting. Retry later.`);
    case 'crashed':
      return failure('TOOL_CRASHED', `${record.name} crashed: ${f.message}`);
  }
}

/** What dispatch needs from the host. */
export interface DispatchDeps {
  registry: Registry;
  config: () => ResolvedConfig;
  exposure: () => Promise<Exposure>;
}

/** The sandbox toolset as of the current exposure. */
async function currentSandboxTools(deps: DispatchDeps): Promise<SandboxToolset> {
  const exposure = await deps.exposure();
  const exposed = new Map(exposure.definitions.map((d) => [d.name, d]));
  return { tools: sandboxTools(deps.config(), exposed, deps.registry.tools), limits: codeLimits(deps.config()) };
}

/** Runs one call through the whole pipeline and returns its outcome. */
export async function dispatchOutcome(deps: DispatchDeps, name: string, rawArgs: unknown, options: DispatchOptions, depth: number): Promise<CallOutcome> {
  const exposure = await deps.exposure();
  const record = deps.registry.tools.get(name);
  if (!record) {
    const exposedNames = exposure.definitions.map((d) => d.name);
    return failure('UNKNOWN_TOOL', `unknown tool '${name}'.${didYouMean(name, exposedNames)}`);
  }
  const state = exposure.states.get(name);
  if (!state?.exposed) {
    return failure('TOOL_NOT_EXPOSED', `tool '${name}' is not available here: ${state?.reason ?? 'not exposed'}`);
  }
  const parsed = parseArguments(rawArgs);
  if (!parsed.ok) return parsed.outcome;
  let args = parsed.value;
  const invalid = validateArguments(record, args);
  if (invalid) {
    // A model given an OpenAI strict-mode schema sends null for "absent"; when
    // dropping such nulls makes the arguments valid, that is what it meant.
    const withoutNulls = dropStrictNulls(args, record.manifest.parameters);
    if (validateArguments(record, withoutNulls)) return invalid;
    args = withoutNulls;
  }
  if (depth > MAX_CALL_DEPTH) return failure('PERMISSION_DENIED', `nested tool calls are limited to a depth of ${MAX_CALL_DEPTH}`);
  const limits = deps.config().limits;
  const timeoutMs = record.manifest.limits.timeoutMs ?? limits.timeoutMs;
  const maxResultChars = Math.min(record.manifest.limits.maxResultChars ?? limits.maxResultChars, limits.maxResultChars);
  const hooks: CallHooks = {
    callTool: (nested, nestedArgs) => dispatchOutcome(deps, nested, nestedArgs, options, depth + 1),
    sandboxTools: () => currentSandboxTools(deps),
  };
  if (options.onLog) hooks.log = options.onLog;
  if (options.onProgress) hooks.progress = options.onProgress;
  const request = { tool: name, args, timeoutMs, maxResultChars, ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}) };
  const outcome = await record.plugin.runner.handle(request, hooks, options.signal);
  if (!outcome.ok) {
    if ('failure' in outcome) return describeFailure(record, outcome.failure);
    if (outcome.error.code === 'TOOL_TIMEOUT') return describeFailure(record, { kind: 'timeout', timeoutMs });
    if (outcome.error.code === 'TOOL_CANCELLED') return describeFailure(record, { kind: 'cancelled' });
    const code = outcome.error.code === 'PERMISSION_DENIED' ? 'PERMISSION_DENIED' : 'TOOL_FAILED';
    return failure(code, outcome.error.message || `${name} failed`);
  }
  const { text, originalLength } = outcome.value;
  // The worker capped already; cap again so a misbehaving tier cannot exceed the limit.
  return { ok: true, text: capText(text, maxResultChars, Math.max(originalLength, text.length)) };
}
