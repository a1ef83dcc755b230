/**
 * docs/embedding.md shows each framework adapter in under 10 lines of user code. This holds it
 * to that: each snippet is found under its heading, its lines are counted, it must be the code
 * that test/docs/snippets/*.ts gives the type checker (so it compiles as TypeScript against the
 * real frameworks' types), and it runs as written, in a Node process of its own whose working
 * folder holds a toolshed config (the snippet's `createToolHost()` takes no options), with the
 * framework's own test model or a scripted OpenAI-compatible server on loopback standing in for
 * the real model. Only the variables the snippet takes from its surroundings (`model`,
 * `sessionId`, `prompt`, `instructions`) are defined around it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, suiteHome } from '../helpers.js';
import { startScriptedServer, toolCall } from '../adapters/scripted-openai.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = readFileSync(path.join(ROOT, 'docs', 'embedding.md'), 'utf8');

/** The first ```ts block after the paragraph that starts with `heading`. */
function snippetAfter(heading: string): string {
  const at = DOC.indexOf(`\n${heading}`);
  expect(at, `docs/embedding.md has no paragraph starting ${heading}`).toBeGreaterThan(-1);
  const open = DOC.indexOf('```ts\n', at);
  const close = DOC.indexOf('\n```', open + 6);
  return DOC.slice(open + 6, close + 1);
}

/** The lines between the markers of a typed copy under test/docs/snippets. */
function typedCopy(name: string): string {
  const text = readFileSync(path.join(ROOT, 'test', 'docs', 'snippets', `${name}.ts`), 'utf8');
  const start = text.indexOf('// --- docs/embedding.md\n') + '// --- docs/embedding.md\n'.length;
  return text.slice(start, text.indexOf('// --- end\n'));
}

const codeLines = (snippet: string) => snippet.split('\n').filter((line) => line.trim() !== '').length;

// Snippet runs live under the repository (in the ignored .tmp/) so that `toolshed` resolves to this
// package by its own name and the frameworks from its node_modules, as they would in an app.
mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
const work = mkdtempSync(path.join(ROOT, '.tmp', 'embedding-snippets-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs `prelude + snippet + epilogue` as an ES module in its own folder; returns what the epilogue printed. */
async function runSnippet(
  name: string,
  parts: { prelude: string; snippet: string; epilogue: string },
  env: Record<string, string> = {},
): Promise<unknown> {
  const dir = path.join(work, name);
  mkdirSync(dir);
  const config = { builtins: false, plugins: [{ package: fixture('plugins', 'notes'), trust: 'trusted' }] };
  writeFileSync(path.join(dir, 'toolshed.config.mjs'), `export default ${JSON.stringify(config)};\n`);
  writeFileSync(path.join(dir, 'app.mjs'), `${parts.prelude}\n${parts.snippet}\n${parts.epilogue}\n`);
  const { stdout } = await promisify(execFile)(process.execPath, ['app.mjs'], {
    cwd: dir,
    env: { ...suiteHome(), PATH: process.env.PATH ?? '', ...env },
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

const ADAPTERS = [
  { name: 'ai-sdk', heading: '**Vercel AI SDK**' },
  { name: 'openai-agents', heading: '**OpenAI Agents SDK**' },
  { name: 'langchain', heading: '**LangChain**' },
] as const;

describe('docs/embedding.md adapter snippets', () => {
  it.each(ADAPTERS)('$name: under 10 lines, and the code the type checker compiles', ({ name, heading }) => {
    const snippet = snippetAfter(heading);
    expect(codeLines(snippet)).toBeLessThan(10);
    expect(snippet).toBe(typedCopy(name));
  });

  it('Vercel AI SDK: runs as written with the SDK test model, calling a tool that works and one that fails', async () => {
    const out = await runSnippet('ai-sdk', {
      prelude: `
import { MockLanguageModelV3 } from 'ai/test';
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const model = new MockLanguageModelV3({ doGenerate: [
  { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_note', input: '{"id":"a"}' }, { type: 'tool-call', toolCallId: 'c2', toolName: 'fail_note', input: '{}' }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] },
  { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
] });
const sessionId = 'docs-1';
const prompt = 'Read note a.';`,
      snippet: snippetAfter('**Vercel AI SDK**'),
      epilogue: `
const sent = model.doGenerateCalls[1].prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content.map((p) => [p.toolCallId, p.output]));
await host.close();
console.log(JSON.stringify({ text, sent }));`,
    });
    expect(out).toEqual({
      text: 'done',
      sent: [
        ['c1', { type: 'text', value: 'note a (session docs-1)' }],
        ['c2', { type: 'error-text', value: '{"error":"the note store is offline","code":"TOOL_FAILED"}' }],
      ],
    });
  });

  it('OpenAI Agents SDK: runs as written against a scripted OpenAI-compatible server, calling a tool that works and one that fails', async () => {
    const server = await startScriptedServer([
      { tool_calls: [toolCall('c1', 'read_note', { id: 'a' }), toolCall('c2', 'fail_note', {})] },
      { content: 'done' },
    ]);
    try {
      // The SDK's default model, pointed at the loopback server (Chat Completions, no trace export).
      const out = await runSnippet(
        'openai-agents',
        {
          prelude: `
import OpenAI from 'openai';
import { setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } from '@openai/agents';
setDefaultOpenAIClient(new OpenAI({ baseURL: process.env.SCRIPTED_BASE_URL, apiKey: 'test' }));
setOpenAIAPI('chat_completions');
setTracingDisabled(true);
const instructions = 'Use the tools.';
const sessionId = 'docs-2';
const prompt = 'Read note a.';`,
          snippet: snippetAfter('**OpenAI Agents SDK**'),
          epilogue: `
await host.close();
console.log(JSON.stringify({ finalOutput }));`,
        },
        { SCRIPTED_BASE_URL: server.baseURL, OPENAI_AGENTS_DISABLE_TRACING: '1' },
      );
      expect(out).toEqual({ finalOutput: 'done' });
      const replies = Object.fromEntries(
        server.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]),
      );
      expect(replies).toEqual({
        c1: 'note a (session docs-2)',
        c2: '{"error":"the note store is offline","code":"TOOL_FAILED"}',
      });
    } finally {
      await server.close();
    }
  });

  it("LangChain: runs as written with the framework's fake tool-calling model, calling a tool that works and one that fails", async () => {
    const out = await runSnippet('langchain', {
      prelude: `
import { FakeToolCallingModel } from 'langchain';
const model = new FakeToolCallingModel({ toolCalls: [[{ name: 'read_note', args: { id: 'a' }, id: 'c1' }, { name: 'fail_note', args: {}, id: 'c2' }], []] });
const sessionId = 'docs-3';
const prompt = 'Read note a.';`,
      snippet: snippetAfter('**LangChain**'),
      epilogue: `
const tools = messages.filter((m) => m.getType() === 'tool').map((m) => [m.tool_call_id, m.status, m.content]);
await host.close();
console.log(JSON.stringify({ tools }));`,
    });
    expect(out).toEqual({
      tools: [
        ['c1', 'success', 'note a (session docs-3)'],
        ['c2', 'error', '{"error":"the note store is offline","code":"TOOL_FAILED"}'],
      ],
    });
  });
});
