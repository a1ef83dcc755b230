// docs/embedding.md's OpenAI Agents SDK snippet, as typed user code: `npm run typecheck` compiles it, and
// test/docs/embedding-snippets.test.ts checks that the lines between the markers are the docs' and runs them.
declare const instructions: string;
declare const sessionId: string;
declare const prompt: string;

// --- docs/embedding.md
import { Agent, run } from '@openai/agents';
import { createToolHost } from 'toolshed';
import { openAiAgentsTools } from 'toolshed/openai-agents';

const host = await createToolHost();
const agent = new Agent({ name: 'assistant', instructions, tools: await openAiAgentsTools(host, { sessionId }) });
const { finalOutput } = await run(agent, prompt);
// --- end

export { host, finalOutput };
