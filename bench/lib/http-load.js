// The load generator of scenario 18, in a process of its own so that its CPU
// is not the server's. Driven over IPC by the scenario:
//   { id, cmd: 'open', target, url, stateful, concurrency }  one lane per in-flight call; a
//                                                            stateful target gets a session per lane
//   { id, cmd: 'run', target, calls }                        makes `calls` tools/call requests,
//                                                            `concurrency` at a time
// and answers { id, ms, errors } (or { id, error }). Requests are keep-alive
// fetches of JSON-RPC, as a 2025-era Streamable HTTP client sends them.
const PROTOCOL = '2025-11-25';
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': PROTOCOL,
};
const CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'bench_echo', arguments: { n: 1 } },
});
const EXPECTED = '{\\"echo\\":1}';
const targets = new Map();

async function post(url, body, session) {
  const res = await fetch(url, {
    method: 'POST',
    headers: session ? { ...HEADERS, 'mcp-session-id': session } : HEADERS,
    body,
  });
  return { res, text: await res.text() };
}

async function openLane(url, stateful) {
  if (!stateful) return undefined;
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'toolshed-bench', version: '1.0.0' } },
  };
  const { res, text } = await post(url, JSON.stringify(init));
  const session = res.headers.get('mcp-session-id');
  if (!session) throw new Error(`initialize gave no session (${res.status}): ${text.slice(0, 200)}`);
  await post(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), session);
  return session;
}

async function run({ url, lanes }, calls) {
  let next = 0;
  let errors = 0;
  let firstError;
  const started = performance.now();
  await Promise.all(
    lanes.map(async (session) => {
      while (next < calls) {
        next++;
        const { res, text } = await post(url, CALL, session).catch((error) => ({
          res: { status: 0 },
          text: String(error),
        }));
        if (res.status !== 200 || !text.includes(EXPECTED)) {
          errors++;
          firstError ??= `${res.status} ${text.slice(0, 200)}`;
        }
      }
    }),
  );
  return { ms: performance.now() - started, errors, firstError };
}

process.on('message', async (message) => {
  try {
    if (message.cmd === 'open') {
      const lanes = await Promise.all(
        Array.from({ length: message.concurrency }, () => openLane(message.url, message.stateful)),
      );
      targets.set(message.target, { url: message.url, lanes });
      process.send({ id: message.id });
    } else if (message.cmd === 'run') {
      process.send({ id: message.id, ...(await run(targets.get(message.target), message.calls)) });
    }
  } catch (error) {
    process.send({ id: message.id, error: String(error?.stack ?? error) });
  }
});
