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

/**
 * Wraps `transport` so each request it delivers runs under its own span, ended by its response (or the transport's
 * close).
 */
function traceTransport(
  transport: Transport,
  network: NetworkTransport | undefined,
  sessionId: () => string | undefined,
): void {
  const open = new Map<string | number, Span>();
  let protocolVersion: string | undefined;
  let initializeId: string | number | undefined;
  const traced =
    (deliver: NonNullable<Transport['onmessage']>): NonNullable<Transport['onmessage']> =>
    (message, extra) => {
      const request = tracingOn() ? asRequest(message) : undefined;
      if (!request) {
        // A cancelled request gets no response: its span ends here.
        const note = message as { method?: string; params?: { requestId?: string | number } };
        if (note.method === 'notifications/cancelled' && note.params?.requestId !== undefined)
          finish(note.params.requestId, 'cancelled');
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
      span.setAttributes({ 'mcp.method.name': request.method, 'jsonrpc.request.id': String(request.id) });
      if (network) span.setAttribute('network.transport', network);
      if (tool) span.setAttributes({ 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' });
      const session = transport.sessionId ?? sessionId();
      if (session) span.setAttribute('mcp.session.id', session);
      if (protocolVersion) span.setAttribute('mcp.protocol.version', protocolVersion);
      if (request.method === 'initialize') initializeId = request.id;
      open.set(request.id, span);
      return context.with(trace.setSpan(parent, span), () => deliver(message, extra));
    };
  const finish = (id: string | number, errorType?: string, description?: string) => {
    const span = open.get(id);
    if (!span) return;
    open.delete(id);
    if (errorType) {
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: SpanStatusCode.ERROR, ...(description ? { message: description } : {}) });
    }
    span.end();
  };
  // The SDK assigns onmessage when it connects: the handler it sets is wrapped. A transport may
  // keep its handler behind an accessor (the Node HTTP transport forwards to an inner one), so
  // the wrapped handler goes through that accessor; otherwise it is kept here.
  let descriptor: PropertyDescriptor | undefined;
  for (let o: object | null = transport; o && !descriptor; o = Object.getPrototypeOf(o))
    descriptor = Object.getOwnPropertyDescriptor(o, 'onmessage');
  let kept: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => (descriptor?.set ? descriptor.get?.call(transport) : kept),
    set: (handler: Transport['onmessage']) => {
      const wrapped = handler ? traced(handler) : handler;
      if (descriptor?.set) descriptor.set.call(transport, wrapped);
      else kept = wrapped;
    },
  });
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const response = asResponse(message);
    if (response && open.has(response.id)) {
      // The version the server agreed to, for the spans of the requests that follow.
      if (response.id === initializeId)
        protocolVersion = (response.result as { protocolVersion?: string } | undefined)?.protocolVersion;
      if (response.error) {
        open.get(response.id)!.setAttribute('rpc.response.status_code', String(response.error.code));
        finish(response.id, String(response.error.code), response.error.message);
      } else finish(response.id, response.result?.isError ? 'tool_error' : undefined);
    }
    return send(message, options);
  };
  // Requests still open when the transport closes get no response: end their spans.
  const previousClose = transport.onclose;
  transport.onclose = () => {
    for (const id of [...open.keys()]) finish(id, 'closed');
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
