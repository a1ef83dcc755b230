#!/usr/bin/env node
// Usage: OPENAI_MODEL=... [OPENAI_BASE_URL=...] [OPENAI_API_KEY=...] [OPENAI_STRICT=1] node index.js "your question"
// Tools come from the toolshed config found from the current folder (or the first-party plugins).
import OpenAI from 'openai';
import { createToolHost } from './lib/toolshed.js';
import { runAgentLoop } from './lib/agent-loop.js';

const model = process.env.OPENAI_MODEL;
if (!model) {
  process.stderr.write(
    'agent-loop: set OPENAI_MODEL (and OPENAI_BASE_URL for a non-OpenAI endpoint, OPENAI_API_KEY if it needs one)\n',
  );
  process.exit(2);
}
const question = process.argv.slice(2).join(' ') || 'Which tools can you use? Try one and tell me what it returned.';
// Local OpenAI-compatible servers usually need no key, but the client insists on one.
const client = new OpenAI({
  apiKey: process.env.OPENAI_API_KEY || 'unused',
  ...(process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : {}),
});
const maxTurns = Number(process.env.AGENT_MAX_TURNS) || undefined;

const host = await createToolHost({ cwd: process.cwd() });
const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
try {
  const result = await runAgentLoop({
    client,
    model,
    host,
    maxTurns,
    strict: process.env.OPENAI_STRICT === '1',
    signal: controller.signal,
    messages: [
      { role: 'system', content: 'You are a helpful assistant. Use the tools when they help; answer briefly.' },
      { role: 'user', content: question },
    ],
    onToolCalls: ({ turn, toolCalls, results }) => {
      toolCalls.forEach((call, i) =>
        process.stderr.write(
          `[turn ${turn}] ${call.function?.name}(${call.function?.arguments}) → ${results[i].content.slice(0, 200)}\n`,
        ),
      );
    },
  });
  if (result.stopReason === 'max_turns') {
    process.stderr.write(`agent-loop: stopped after ${result.turns} turns without a final answer\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write(`${result.answer}\n`);
  }
} finally {
  await host.close();
}
