// The ai-sdk example against a scripted OpenAI-compatible server on loopback and a real toolshed host.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost } from 'toolshed';
import { ask, endpointModel } from '../index.js';
import { startScriptedServer, toolCall } from '../../agent-loop/test/scripted-server.js';

const NOTES = fileURLToPath(new URL('../../../test/fixtures/plugins/notes', import.meta.url));

let host;
let server;
beforeAll(async () => {
  host = await createToolHost({
    cwd: fileURLToPath(new URL('.', import.meta.url)),
    env: { PATH: process.env.PATH },
    config: { builtins: false, cache: { enabled: false }, plugins: [{ package: NOTES, trust: 'trusted' }] },
  });
});
afterAll(async () => {
  await server?.close();
  await host?.close();
});

describe('the ai-sdk example', () => {
  it('answers after the model called a tool that worked and one that failed', async () => {
    server = await startScriptedServer([
      { tool_calls: [toolCall('call_1', 'read_note', { id: 'a' }), toolCall('call_2', 'fail_note', {})] },
      { content: 'Note a is there; the store is offline.' },
    ]);
    const result = await ask({
      host,
      model: endpointModel({ baseURL: server.baseURL, apiKey: 'test', modelId: 'scripted' }),
      prompt: 'Read note a.',
      sessionId: 's1',
    });
    expect(result.answer).toBe('Note a is there; the store is offline.');
    const [first, second] = server.requests;
    expect(first.tools.map((t) => t.function.name).sort()).toEqual(
      (await host.definitions({ format: 'mcp' })).map((d) => d.name).sort(),
    );
    const replies = Object.fromEntries(
      second.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]),
    );
    expect(replies.call_1).toBe('note a (session s1)');
    expect(replies.call_2).toContain('{"error":"the note store is offline","code":"TOOL_FAILED"}');
  });
});
