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
import type { DispatchObserver, DispatchWatch, ObservedCall } from './dispatch-watches.js';
import { resultDigest } from './digests.js';

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
 * Every dispatch under an `execute_tool {name}` span, when an SDK records (no span object is built otherwise).
 * The span's parent is the caller's active context, or the worker span of the tool that made a nested call.
 * It carries who the call is for (`enduser.id`, never the token) and the digests of its arguments and result.
 */
export const dispatchSpans: DispatchObserver = {
  started(call) {
    if (!tracingOn()) return undefined;
    const { context, SpanKind } = api();
    const parent = nestedParents.get(call.context) ?? context.active();
    const span = tracer().startSpan(`execute_tool ${call.tool}`, { kind: SpanKind.INTERNAL }, parent);
    if (!span.isRecording()) {
      span.end();
      return undefined;
    }
    describeCall(span, call);
    return new DispatchSpan(span, api().trace.setSpan(parent, span));
  },
};

/** The attributes a dispatch span has from its start. */
function describeCall(span: Span, call: ObservedCall): void {
  const { options, context } = call;
  span.setAttributes({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': call.tool,
    'gen_ai.tool.type': 'function',
    [ATTR.depth]: context.chain.length,
  });
  if (options.callId !== undefined) span.setAttribute('gen_ai.tool.call.id', options.callId);
  if (options.sessionId !== undefined) span.setAttribute('gen_ai.conversation.id', options.sessionId);
  if (options.identity) span.setAttribute(ENDUSER_ID, options.identity.subject);
  if (options.identity?.issuer !== undefined) span.setAttribute(ATTR.issuer, options.identity.issuer);
  span.setAttribute(ATTR.argumentsDigest, call.args().digest);
  const caller = context.chain[context.chain.length - 1];
  if (caller) span.setAttribute(ATTR.caller, caller.tool);
}

/** The spans of one dispatch: the call's own, and its worker run's as a child. */
class DispatchSpan implements DispatchWatch {
  /** what a nested call made by the handler hangs from: the worker span once the worker runs */
  private workerContext: Context;

  constructor(
    private readonly span: Span,
    private readonly spanContext: Context,
  ) {
    this.workerContext = spanContext;
  }

  within(run: () => Promise<CallOutcome>): Promise<CallOutcome> {
    return api().context.with(this.spanContext, run);
  }

  known(record: ToolRecord): void {
    this.span.setAttributes({
      'gen_ai.tool.description': ownDescription(record),
      [ATTR.plugin]: record.plugin.source.name,
      [ATTR.tier]: record.plugin.runner.tier,
    });
  }

  async inTier<T>(record: ToolRecord, runWorker: () => Promise<T>): Promise<T> {
    const { context, trace, SpanKind } = api();
    const child = tracer().startSpan(
      `toolshed.worker ${record.name}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: { [ATTR.plugin]: record.plugin.source.name, [ATTR.tier]: record.plugin.runner.tier },
      },
      this.spanContext,
    );
    this.workerContext = trace.setSpan(this.spanContext, child);
    try {
      return await context.with(this.workerContext, runWorker);
    } finally {
      child.end();
    }
  }

  adopt(nested: CallContext): CallContext {
    nestedParents.set(nested, this.workerContext);
    return nested;
  }

  settled(outcome: CallOutcome): void {
    endWith(this.span, outcome);
  }

  threw(error: unknown): void {
    this.span.recordException(error as Error);
    this.span.setStatus({ code: api().SpanStatusCode.ERROR, message: (error as Error)?.message });
    this.span.end();
  }
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
