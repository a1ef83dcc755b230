// A tiny OpenAI-compatible chat completions server on loopback that replays a script:
// each POST /v1/chat/completions gets the next scripted assistant message, and every
// request body is kept so a test can see what the loop sent.
import http from 'node:http';

/**
 * @param {Array<object | ((body: object) => object)>} script assistant messages (or functions of the request) in order;
 *   the last one repeats when the script runs out
 * @returns {Promise<{ baseURL: string, requests: object[], close(): Promise<void> }>}
 */
export async function startScriptedServer(script) {
  const requests = [];
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    requests.push(body);
    const step = script[Math.min(requests.length - 1, script.length - 1)];
    const message = typeof step === 'function' ? step(body) : step;
    const finish = message.tool_calls?.length ? 'tool_calls' : 'stop';
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
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** An assistant tool call as the API returns it. */
export function toolCall(id, name, args) {
  return {
    id,
    type: 'function',
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  };
}
