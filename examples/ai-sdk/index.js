#!/usr/bin/env node
// toolshed's tools in a Vercel AI SDK agent, against any OpenAI-compatible endpoint.
// Usage: OPENAI_MODEL=... [OPENAI_BASE_URL=...] [OPENAI_API_KEY=...] node examples/ai-sdk/index.js "your question"
import { pathToFileURL } from 'node:url';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs } from 'ai';
import { createToolHost } from 'toolshed';
import { liveAiSdkTools } from 'toolshed/ai-sdk';

/** One agent run: the model may call toolshed's tools for up to `maxSteps` steps, then answers. */
export async function ask({ host, model, prompt, sessionId, maxSteps = 8 }) {
  // The live set follows the host: prepareStep brings it up to date before every step.
  const tools = await liveAiSdkTools(host, { sessionId });
  try {
    const result = await generateText({
      model,
      tools: tools.tools,
      prepareStep: tools.prepareStep,
      stopWhen: stepCountIs(maxSteps),
      prompt,
    });
    return { answer: result.text, steps: result.steps.length };
  } finally {
    tools.close();
  }
}

/** The chat model of an OpenAI-compatible endpoint. */
export function endpointModel({ baseURL = 'https://api.openai.com/v1', apiKey, modelId }) {
  return createOpenAICompatible({ name: 'endpoint', baseURL, ...(apiKey ? { apiKey } : {}) }).chatModel(modelId);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const modelId = process.env.OPENAI_MODEL;
  if (!modelId) {
    process.stderr.write(
      'ai-sdk example: set OPENAI_MODEL (and OPENAI_BASE_URL for a non-OpenAI endpoint, OPENAI_API_KEY if it ' +
        'needs one)\n',
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
