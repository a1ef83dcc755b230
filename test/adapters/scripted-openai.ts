/**
 * A small OpenAI-compatible Chat Completions server on loopback that replays a
 * script: each request gets the next assistant message (or the result of a
 * function of the request), and every request body is kept for assertions.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A chat completions request body, as far as the tests read it. */
export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content?: unknown; tool_call_id?: string; tool_calls?: unknown[] }>;
  tools?: Array<{
    type: 'function';
    function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
  }>;
}

/** One scripted assistant message. */
export type ScriptStep = Record<string, unknown> | ((request: ChatRequest) => Record<string, unknown>);

/** A running scripted server. */
export interface ScriptedServer {
  baseURL: string;
  requests: ChatRequest[];
  close(): Promise<void>;
}

/** Starts the server; the last step repeats when the script runs out. */
export async function startScriptedServer(script: ScriptStep[]): Promise<ScriptedServer> {
  const requests: ChatRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
      requests.push(body);
      const step = script[Math.min(requests.length - 1, script.length - 1)]!;
      const message = typeof step === 'function' ? step(body) : step;
      const finish = Array.isArray(message.tool_calls) && message.tool_calls.length ? 'tool_calls' : 'stop';
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finish }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** An assistant tool call as the API returns it. */
export function toolCall(id: string, name: string, args: object | string) {
  return {
    id,
    type: 'function',
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  };
}
