// docs/embedding.md's Vercel AI SDK snippet, as typed user code: `npm run typecheck` compiles it, and
// test/docs/embedding-snippets.test.ts checks that the lines between the markers are the docs' and runs them.
import type { LanguageModel } from 'ai';

declare const model: LanguageModel;
declare const sessionId: string;
declare const prompt: string;

// --- docs/embedding.md
import { generateText, stepCountIs } from 'ai';
import { createToolHost } from 'toolshed';
import { aiSdkTools } from 'toolshed/ai-sdk';

const host = await createToolHost();
const tools = await aiSdkTools(host, { sessionId });
const { text } = await generateText({ model, tools, stopWhen: stepCountIs(5), prompt });
// --- end

export { host, text };
