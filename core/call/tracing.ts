/**
 * OpenTelemetry spans through `@opentelemetry/api`, which does nothing until
 * the embedder registers an SDK: one span per dispatch (`execute_tool {tool}`,
 * after the GenAI semantic conventions) with the worker run as a child, and
 * one per availability check. A dispatch span names who the call is for
 * (`enduser.id`) and carries the digests of its arguments and result
 * (digests.ts), never their content. Without a recording SDK a span is never built
 * at all (`tracingOn`), so dispatch does no extra work, and the API itself is
 * not loaded until an SDK has registered something (its ~45 modules are a
 * tenth of a host's start).
 */
import { createRequire } from 'node:module';
import type * as OTel from '@opentelemetry/api';
import type { Context, Span, Tracer, TracerProvider } from '@opentelemetry/api';
import { TOOLSHED_VERSION } from '../../boundary/version.js';
import type { CallOutcome } from '../../boundary/outcome.js';
import type { CallContext } from './chain.js';
import type { ToolRecord } from '../load/types.js';
import type { Identity } from './public-types.js';
import { resultDigest, type ReceivedArguments } from './digests.js';

let provider: TracerProvider | undefined;
let current: Tracer | undefined;

/**
 * Where every copy of the API (major version 1, as ours) keeps what an SDK registers: one
 * object on the global under this symbol, with a `trace` entry once a tracer provider is set
 * and without it again after `trace.disable()`. Reading it needs no API module loaded.
 */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

let otel: { api: typeof OTel; noop: TracerProvider } | undefined;

/**
 * The API (loaded synchronously on first use) and its no-op provider: what an unregistered global proxy delegates to.
 */
function api(): typeof OTel {
  if (!otel) {
    const loaded = createRequire(import.meta.url)('@opentelemetry/api') as typeof OTel;
    otel = { api: loaded, noop: new loaded.ProxyTracerProvider().getDelegate() };
  }
  return otel.api;
}

/**
 * Whether an SDK is registered: the global provider is not the API's bare proxy over its no-op.
 * Checked before anything else, so a host without an SDK builds no span object at all.
 */
export function tracingOn(): boolean {
  if (!otel && (globalThis as { [API_GLOBAL]?: { trace?: unknown } })[API_GLOBAL]?.trace === undefined) return false;
  const { trace, ProxyTracerProvider } = api();
  const now = trace.getTracerProvider();
  return !(now instanceof ProxyTracerProvider) || now.getDelegate() !== otel!.noop;
}

/**
 * The tracer every toolshed span comes from (instrumentation scope `toolshed`), from the global
 * provider in force: looked up again when it changes, since `trace.disable()` (tests, benchmarks)
 * replaces the provider a tracer taken once would keep pointing at.
 */
export function tracer(): Tracer {
  const now = api().trace.getTracerProvider();
  if (now !== provider) {
    provider = now;
    current = now.getTracer('toolshed', TOOLSHED_VERSION);
  }
  return current!;
}

/** Attribute names toolshed sets beyond the semantic conventions. */
const ATTR = {
  plugin: 'toolshed.plugin',
  tier: 'toolshed.tier',
  outcome: 'toolshed.outcome.code',
  resultSize: 'toolshed.result.size',
  depth: 'toolshed.call.depth',
  caller: 'toolshed.caller.tool',
  checkId: 'toolshed.check.id',
  checkOk: 'toolshed.check.ok',
  checkReason: 'toolshed.check.reason',
  issuer: 'toolshed.identity.issuer',
  argumentsDigest: 'toolshed.arguments.sha256',
  resultDigest: 'toolshed.result.sha256',
} as const;

/** The semantic conventions' attribute for who the call is for (the identity's subject). */
const ENDUSER_ID = 'enduser.id';

/** Where each nested call's span hangs: the worker span of the tool that made it (set when the worker runs). */
const nestedParents = new WeakMap<CallContext, Context>();

/** The spans of one dispatch, while it is recorded. */
export interface DispatchTrace {
  /** the tool is known: its plugin and tier */
  tool(record: ToolRecord): void;
  /** runs the worker part of the call under its own child span */
  worker<T>(record: ToolRecord, run: () => Promise<T>): Promise<T>;
  /** the context a nested call made by this call's handler hangs from */
  adopt(nested: CallContext): CallContext;
}

/**
 * The tool's description without the parts that depend on which other tools are exposed (those differ per host and
 * view).
 */
function ownDescription(record: ToolRecord): string {
  return record.manifest.description.filter((part): part is string => typeof part === 'string').join(' ');
}

function endWith(span: Span, outcome: CallOutcome): void {
  const { SpanStatusCode } = api();
  span.setAttribute(ATTR.outcome, outcome.ok ? 'OK' : outcome.code);
  span.setAttribute(ATTR.resultSize, outcome.ok ? outcome.text.length : outcome.message.length);
  span.setAttribute(ATTR.resultDigest, resultDigest(outcome));
  if (!outcome.ok) {
    span.setAttribute('error.type', outcome.code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message });
  }
  span.end();
}

/**
 * Runs one dispatch under an `execute_tool {name}` span, or just runs it when no SDK records.
 * The span's parent is the caller's active context, or the worker span of the tool that made a nested call.
 * It carries who the call is for (`enduser.id`, never the token) and the digests of its arguments and result.
 */
export function traceDispatch(
  name: string,
  args: () => ReceivedArguments,
  options: { callId?: string; sessionId?: string; identity?: Identity },
  call: CallContext,
  run: (trace: DispatchTrace | undefined) => Promise<CallOutcome>,
): Promise<CallOutcome> {
  if (!tracingOn()) return run(undefined);
  const { context, trace, SpanKind, SpanStatusCode } = api();
  const parent = nestedParents.get(call) ?? context.active();
  const span = tracer().startSpan(`execute_tool ${name}`, { kind: SpanKind.INTERNAL }, parent);
  if (!span.isRecording()) {
    span.end();
    return run(undefined);
  }
  span.setAttributes({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    'gen_ai.tool.type': 'function',
    [ATTR.depth]: call.chain.length,
  });
  if (options.callId !== undefined) span.setAttribute('gen_ai.tool.call.id', options.callId);
  if (options.sessionId !== undefined) span.setAttribute('gen_ai.conversation.id', options.sessionId);
  if (options.identity) span.setAttribute(ENDUSER_ID, options.identity.subject);
  if (options.identity?.issuer !== undefined) span.setAttribute(ATTR.issuer, options.identity.issuer);
  span.setAttribute(ATTR.argumentsDigest, args().digest);
  const caller = call.chain[call.chain.length - 1];
  if (caller) span.setAttribute(ATTR.caller, caller.tool);
  const spanContext = trace.setSpan(parent, span);
  let workerContext = spanContext;
  const handle: DispatchTrace = {
    tool(record) {
      span.setAttributes({
        'gen_ai.tool.description': ownDescription(record),
        [ATTR.plugin]: record.plugin.source.name,
        [ATTR.tier]: record.plugin.runner.tier,
      });
    },
    async worker(record, runWorker) {
      const child = tracer().startSpan(
        `toolshed.worker ${record.name}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: { [ATTR.plugin]: record.plugin.source.name, [ATTR.tier]: record.plugin.runner.tier },
        },
        spanContext,
      );
      workerContext = trace.setSpan(spanContext, child);
      try {
        return await context.with(workerContext, runWorker);
      } finally {
        child.end();
      }
    },
    adopt(nested) {
      nestedParents.set(nested, workerContext);
      return nested;
    },
  };
  return context
    .with(spanContext, () => run(handle))
    .then(
      (outcome) => {
        endWith(span, outcome);
        return outcome;
      },
      (error: unknown) => {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
        span.end();
        throw error;
      },
    );
}

/** Runs one availability check probe under a `toolshed.check {tool}` span. */
export async function traceCheck<T extends { ok: boolean; reason?: string }>(
  record: ToolRecord,
  run: () => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return run();
  const { context, trace, SpanKind, SpanStatusCode } = api();
  const span = tracer().startSpan(`toolshed.check ${record.name}`, { kind: SpanKind.INTERNAL });
  if (!span.isRecording()) {
    span.end();
    return run();
  }
  span.setAttributes({
    'gen_ai.tool.name': record.name,
    [ATTR.plugin]: record.plugin.source.name,
    [ATTR.tier]: record.plugin.runner.tier,
    [ATTR.checkId]: record.manifest.checkId ?? '',
  });
  try {
    const verdict = await context.with(trace.setSpan(context.active(), span), run);
    span.setAttribute(ATTR.checkOk, verdict.ok);
    if (!verdict.ok && verdict.reason) span.setAttribute(ATTR.checkReason, verdict.reason);
    return verdict;
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
    throw error;
  } finally {
    span.end();
  }
}
