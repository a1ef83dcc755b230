// The agent loop against a scripted OpenAI-compatible server on loopback and a real toolshed host.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost } from '../lib/toolshed.js';
import { runAgentLoop } from '../lib/agent-loop.js';
import { startScriptedServer, toolCall } from './scripted-server.js';

const KITCHEN = fileURLToPath(new URL('../../../test/fixtures/plugins/kitchen', import.meta.url));
const INDEX = fileURLToPath(new URL('../index.js', import.meta.url));
const config = {
  builtins: false,
  cache: { enabled: false },
  plugins: [{ package: KITCHEN, trust: 'trusted' }],
  disable: ['loop', 'oom', 'exit'],
};
const messages = [{ role: 'user', content: 'Use the tools.' }];

let host;
let server;
beforeAll(async () => {
  host = await createToolHost({ cwd: path.dirname(KITCHEN), config, env: { PATH: process.env.PATH } });
});
afterAll(() => host?.close());
afterEach(() => server?.close());

const clientFor = (baseURL) => new OpenAI({ baseURL, apiKey: 'test', maxRetries: 0 });

describe('agent loop', () => {
  it('sends the definitions as tools, dispatches the tool_calls, appends the results and stops at the answer', async () => {
    server = await startScriptedServer([
      {
        tool_calls: [
          toolCall('call_1', 'echo', { n: 1 }),
          toolCall('call_2', 'text', {}),
          toolCall('call_3', 'typed', { path: 'x' }),
        ],
      },
      { content: 'All done.' },
    ]);
    const result = await runAgentLoop({ client: clientFor(server.baseURL), model: 'scripted', host, messages });
    expect(result).toMatchObject({ answer: 'All done.', turns: 2, stopReason: 'done' });

    const [first, second] = server.requests;
    expect(first.model).toBe('scripted');
    expect(first.tools).toEqual(await host.definitions({ format: 'openai' }));
    expect(first.tools.map((t) => t.function.name)).toContain('echo');
    // The second request carries the assistant turn and one tool message per call, in call order.
    const toolMessages = second.messages.filter((m) => m.role === 'tool');
    expect(second.messages.at(-4)).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_1' }, { id: 'call_2' }, { id: 'call_3' }],
    });
    expect(toolMessages.map((m) => m.tool_call_id)).toEqual(['call_1', 'call_2', 'call_3']);
    expect(toolMessages[0].content).toBe('{"n":1}');
    expect(toolMessages[1].content).toBe('plain text');
    // A failing call is an error envelope the model can read, not an exception.
    expect(JSON.parse(toolMessages[2].content)).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: 'All done.' });
  });

  it("runs one turn's calls in parallel", async () => {
    let inFlight = 0;
    let most = 0;
    const observed = {
      ...host,
      async dispatch(...args) {
        inFlight++;
        most = Math.max(most, inFlight);
        try {
          return await host.dispatch(...args);
        } finally {
          inFlight--;
        }
      },
    };
    server = await startScriptedServer([
      { tool_calls: [toolCall('a', 'slow', { ms: 50 }), toolCall('b', 'slow', { ms: 50 }), toolCall('c', 'echo', {})] },
      { content: 'ok' },
    ]);
    const result = await runAgentLoop({
      client: clientFor(server.baseURL),
      model: 'scripted',
      host: observed,
      messages,
    });
    expect(result.answer).toBe('ok');
    expect(most).toBe(3);
    expect(server.requests[1].messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
      'waited 50',
      'waited 50',
      '{}',
    ]);
  });

  it('stops after maxTurns when the model never stops calling tools', async () => {
    server = await startScriptedServer([
      (body) => ({ tool_calls: [toolCall(`call_${body.messages.length}`, 'text', {})] }),
    ]);
    const result = await runAgentLoop({
      client: clientFor(server.baseURL),
      model: 'scripted',
      host,
      messages,
      maxTurns: 3,
    });
    expect(result).toMatchObject({ answer: null, turns: 3, stopReason: 'max_turns' });
    expect(server.requests).toHaveLength(3);
  });

  it('in strict mode sends strict tools and undoes the nulls strict mode makes the model send', async () => {
    server = await startScriptedServer([
      { tool_calls: [toolCall('s1', 'typed', { path: 'notes.md', mode: 'read', count: null, nested: null })] },
      { content: 'read it' },
    ]);
    const result = await runAgentLoop({
      client: clientFor(server.baseURL),
      model: 'scripted',
      host,
      messages,
      strict: true,
    });
    expect(result.answer).toBe('read it');
    const typed = server.requests[0].tools.find((t) => t.function.name === 'typed');
    expect(typed.function.strict).toBe(true);
    const [toolMessage] = server.requests[1].messages.filter((m) => m.role === 'tool');
    expect(JSON.parse(toolMessage.content)).toEqual({ got: { path: 'notes.md', mode: 'read' } });
  });

  it('index.js reads the endpoint and model from the environment and prints the answer', async () => {
    server = await startScriptedServer([
      { tool_calls: [toolCall('c1', 'echo', { from: 'cli' })] },
      { content: 'The echo said hi.' },
    ]);
    const project = mkdtempSync(path.join(os.tmpdir(), 'agent-loop-'));
    try {
      writeFileSync(path.join(project, 'package.json'), '{"name":"agent-project","private":true}');
      writeFileSync(path.join(project, '.toolshedrc.json'), JSON.stringify(config));
      const child = spawn(process.execPath, [INDEX, 'say hi'], {
        cwd: project,
        // The suite's own state folder (vitest.config.ts), so the run never records trust in the real user's.
        env: {
          PATH: process.env.PATH,
          XDG_STATE_HOME: process.env.XDG_STATE_HOME,
          XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
          OPENAI_BASE_URL: server.baseURL,
          OPENAI_MODEL: 'scripted',
          OPENAI_API_KEY: 'test',
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      // 'close' (the process ended and its output was read to the end), not 'exit'.
      const code = await new Promise((resolve) => child.once('close', resolve));
      expect(code, stderr).toBe(0);
      expect(stdout).toBe('The echo said hi.\n');
      expect(stderr).toContain('[turn 1] echo({"from":"cli"}) → {"from":"cli"}');
      expect(server.requests[0].messages.at(-1)).toEqual({ role: 'user', content: 'say hi' });
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
