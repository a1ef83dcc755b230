#!/usr/bin/env node
// toolshed's tools in an OpenAI Agents SDK agent, against any OpenAI-compatible endpoint.
// Usage: OPENAI_MODEL=... [OPENAI_BASE_URL=...] [OPENAI_API_KEY=...] node examples/openai-agents/index.js "your
// question"
import { pathToFileURL } from 'node:url';
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { createToolHost } from 'toolshed';
import { openAiAgentsTools } from 'toolshed/openai-agents';

/** One agent run with toolshed's tools (strict mode where each tool's schema allows it). */
export async function ask({ host, model, prompt, sessionId, maxTurns = 8 }) {
  const agent = new Agent({
    name: 'assistant',
    instructions: 'You are a helpful assistant. Use the tools when they help; answer briefly.',
    model,
    tools: await openAiAgentsTools(host, { sessionId }),
  });
  const result = await run(agent, prompt, { maxTurns });
  return { answer: result.finalOutput };
}

/** The SDK's Chat Completions model on an OpenAI-compatible endpoint. */
export function endpointModel({ baseURL, apiKey, modelId }) {
  // Traces would be exported to OpenAI's platform; this example runs against any endpoint.
  setTracingDisabled(true);
  return new OpenAIChatCompletionsModel(
    new OpenAI({ apiKey: apiKey || 'unused', ...(baseURL ? { baseURL } : {}) }),
    modelId,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const modelId = process.env.OPENAI_MODEL;
  if (!modelId) {
    process.stderr.write(
      'openai-agents example: set OPENAI_MODEL (and OPENAI_BASE_URL for a non-OpenAI endpoint, OPENAI_API_KEY ' +
        'if it needs one)\n',
    );
    process.exit(2);
  }
  const host = await createToolHost({ cwd: process.cwd() });
  try {
    const model = endpointModel({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY, modelId });
    const { answer } = await ask({
      host,
      model,
      prompt: process.argv.slice(2).join(' ') || 'Which tools can you use? Try one.',
    });
    process.stdout.write(`${answer}\n`);
  } finally {
    await host.close();
  }
}
