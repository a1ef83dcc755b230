// docs/embedding.md's LangChain snippet, as typed user code: `npm run typecheck` compiles it, and
// test/docs/embedding-snippets.test.ts checks that the lines between the markers are the docs' and runs them.
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';

declare const model: BaseChatModel;
declare const sessionId: string;
declare const prompt: string;

// --- docs/embedding.md
import { createAgent } from 'langchain';
import { createToolHost } from 'toolshed';
import { langchainTools } from 'toolshed/langchain';

const host = await createToolHost();
const agent = createAgent({ model, tools: await langchainTools(host, { sessionId }) });
const { messages } = await agent.invoke({ messages: [{ role: 'user', content: prompt }] });
// --- end

export { host, messages };
