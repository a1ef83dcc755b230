/**
 * One OpenTelemetry span per MCP request the server handles, after the MCP
 * semantic conventions: `{mcp.method.name} {target}` (the tool's name for
 * tools/call), kind SERVER, parented on the trace context the client put in
 * `params._meta` (traceparent), and the active context while the request is
 * handled, so the dispatch span of a tools/call hangs from it. The transport
 * is wrapped before the SDK connects to it: every incoming request starts a
 * span and the response the server sends ends it.
 */
import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import type { JSONRPCMessage, Server, Transport } from '@modelcontextprotocol/server';
import { tracer, tracingOn } from '../../call/tracing.js';

type Meta = Record<string, unknown>;

/** Reads trace context keys (traceparent, tracestate, baggage) from a request's `params._meta`. */
const metaGetter: TextMapGetter<Meta> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => (typeof carrier[key] === 'string' ? (carrier[key] as string) : undefined),
};

interface Request {
  id: string | number;
  method: string;
  params?: { name?: unknown; _meta?: Meta };
}

function asRequest(message: JSONRPCMessage): Request | undefined {
  const m = message as Partial<Request>;
  return typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')
    ? (m as Request)
    : undefined;
}

function asResponse(
  message: JSONRPCMessage,
): { id: string | number; result?: { isError?: boolean }; error?: { code: number; message: string } } | undefined {
  const m = message as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
  return m.method === undefined &&
    (typeof m.id === 'string' || typeof m.id === 'number') &&
    (m.result !== undefined || m.error !== undefined)
    ? (m as never)
    : undefined;
}

/** The semantic conventions' network.transport: 'tcp' for Streamable HTTP, 'pipe' for stdio. */
export type NetworkTransport = 'pipe' | 'tcp';

/** The open spans of one transport's requests: started as a request arrives, ended by its response. */
class RequestSpans {
  private readonly open = new Map<string | number, Span>();
  private protocolVersion: string | undefined;
  private initializeId: string | number | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly network: NetworkTransport | undefined,
    private readonly sessionId: () => string | undefined,
  ) {}

  /** Delivers `message` under a span of its own when it is a request (and tracing is on). */
  deliver(
    message: JSONRPCMessage,
    extra: Parameters<NonNullable<Transport['onmessage']>>[1],
    deliver: NonNullable<Transport['onmessage']>,
  ): void {
    const request = tracingOn() ? asRequest(message) : undefined;
    if (!request) {
      // A cancelled request gets no response: its span ends here.
      const note = message as { method?: string; params?: { requestId?: string | number } };
      if (note.method === 'notifications/cancelled' && note.params?.requestId !== undefined)
        this.finish(note.params.requestId, 'cancelled');
      return deliver(message, extra);
    }
    const tool =
      request.method === 'tools/call' && typeof request.params?.name === 'string' ? request.params.name : undefined;
    const meta = request.params?._meta;
    const parent = meta ? propagation.extract(context.active(), meta, metaGetter) : context.active();
    const span = tracer().startSpan(
      tool ? `${request.method} ${tool}` : request.method,
      { kind: SpanKind.SERVER },
      parent,
    );
    if (!span.isRecording()) {
      span.end();
      return deliver(message, extra);
    }
    this.describe(span, request, tool);
    if (request.method === 'initialize') this.initializeId = request.id;
    this.open.set(request.id, span);
    return context.with(trace.setSpan(parent, span), () => deliver(message, extra));
  }

  /** Ends the span of the request `message` answers, if it is a response to one. */
  answered(message: JSONRPCMessage): void {
    const response = asResponse(message);
    if (!response || !this.open.has(response.id)) return;
    // The version the server agreed to, for the spans of the requests that follow.
    if (response.id === this.initializeId)
      this.protocolVersion = (response.result as { protocolVersion?: string } | undefined)?.protocolVersion;
    if (response.error) {
      this.open.get(response.id)!.setAttribute('rpc.response.status_code', String(response.error.code));
      this.finish(response.id, String(response.error.code), response.error.message);
    } else this.finish(response.id, response.result?.isError ? 'tool_error' : undefined);
  }

  /** Ends the spans of requests still open (the transport closed: they get no response). */
  closed(): void {
    for (const id of [...this.open.keys()]) this.finish(id, 'closed');
  }

  private describe(span: Span, request: Request, tool: string | undefined): void {
    span.setAttributes({ 'mcp.method.name': request.method, 'jsonrpc.request.id': String(request.id) });
    if (this.network) span.setAttribute('network.transport', this.network);
    if (tool) span.setAttributes({ 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' });
    const session = this.transport.sessionId ?? this.sessionId();
    if (session) span.setAttribute('mcp.session.id', session);
    if (this.protocolVersion) span.setAttribute('mcp.protocol.version', this.protocolVersion);
  }

  private finish(id: string | number, errorType?: string, description?: string): void {
    const span = this.open.get(id);
    if (!span) return;
    this.open.delete(id);
    if (errorType) {
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: SpanStatusCode.ERROR, ...(description ? { message: description } : {}) });
    }
    span.end();
  }
}

/**
 * Wraps every handler the SDK assigns to `transport.onmessage` with `wrap`. The SDK assigns it when it connects. A
 * transport may keep its handler behind an accessor (the Node HTTP transport forwards to an inner one), so the wrapped
 * handler goes through that accessor; otherwise it is kept here.
 */
function wrapOnMessage(
  transport: Transport,
  wrap: (handler: NonNullable<Transport['onmessage']>) => NonNullable<Transport['onmessage']>,
): void {
  let descriptor: PropertyDescriptor | undefined;
  for (let o: object | null = transport; o && !descriptor; o = Object.getPrototypeOf(o))
    descriptor = Object.getOwnPropertyDescriptor(o, 'onmessage');
  let kept: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => (descriptor?.set ? descriptor.get?.call(transport) : kept),
    set: (handler: Transport['onmessage']) => {
      const wrapped = handler ? wrap(handler) : handler;
      if (descriptor?.set) descriptor.set.call(transport, wrapped);
      else kept = wrapped;
    },
  });
}

/**
 * Wraps `transport` so each request it delivers runs under its own span, ended by its response (or the transport's
 * close).
 */
function traceTransport(
  transport: Transport,
  network: NetworkTransport | undefined,
  sessionId: () => string | undefined,
): void {
  const spans = new RequestSpans(transport, network, sessionId);
  wrapOnMessage(transport, (deliver) => (message, extra) => spans.deliver(message, extra, deliver));
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    spans.answered(message);
    return send(message, options);
  };
  // Requests still open when the transport closes get no response: end their spans.
  const previousClose = transport.onclose;
  transport.onclose = () => {
    spans.closed();
    previousClose?.();
  };
}

/** Makes `server` trace every request on whatever transport it connects to. */
export function traceServer(
  server: Server,
  network?: NetworkTransport,
  sessionId: () => string | undefined = () => undefined,
): void {
  const connect = server.connect.bind(server);
  // Wrapped before the SDK's connect, which installs its message handler and starts reading.
  server.connect = async (transport: Transport) => {
    traceTransport(transport, network, sessionId);
    return connect(transport);
  };
}
