#!/usr/bin/env node
// toolshed's tools in a LangChain agent (createAgent), against any OpenAI-compatible endpoint.
// Usage: OPENAI_MODEL=... [OPENAI_BASE_URL=...] [OPENAI_API_KEY=...] node examples/langchain/index.js "your question"
import { pathToFileURL } from 'node:url';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent } from 'langchain';
import { createToolHost } from 'toolshed';
import { langchainTools } from 'toolshed/langchain';

/** One agent run with toolshed's tools as LangChain StructuredTools. */
export async function ask({ host, model, prompt, sessionId }) {
  const agent = createAgent({
    model,
    tools: await langchainTools(host, { sessionId }),
    systemPrompt: 'Use the tools when they help; answer briefly.',
  });
  const { messages } = await agent.invoke({ messages: [{ role: 'user', content: prompt }] });
  return { answer: messages.at(-1).text, messages };
}

/** A LangChain chat model on an OpenAI-compatible endpoint. */
export function endpointModel({ baseURL, apiKey, modelId }) {
  return new ChatOpenAI({
    model: modelId,
    apiKey: apiKey || 'unused',
    ...(baseURL ? { configuration: { baseURL } } : {}),
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const modelId = process.env.OPENAI_MODEL;
  if (!modelId) {
    process.stderr.write(
      'langchain example: set OPENAI_MODEL (and OPENAI_BASE_URL for a non-OpenAI endpoint, OPENAI_API_KEY if ' +
        'it needs one)\n',
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
