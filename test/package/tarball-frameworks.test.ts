/**
 * The agent frameworks' adapters in the published package: each framework's previous and
 * current major, installed strictly beside the packed toolshed (app.ts), runs one agent turn
 * through its adapter and type-checks against the app's framework. The previous majors run in
 * a folder of their own inside the first app, so the CLI tests of tarball.test.ts, which
 * add a config to that app's root, do not change what they see.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, toolCall } from '../adapters/scripted-openai.js';
import { CURRENT, type Framework, lockedVersion, NPM_ENV, packedApps, PREVIOUS, run, runAsync, TSC } from './app.js';

let bin: string;

/** One agent turn per framework: a call that reads notes.txt and one that fails (missing.txt); each prints what the model was sent back. */
const AGENT_SCRIPTS: Record<string, string[]> = {
  ai: [
    "import { generateText, stepCountIs } from 'ai';",
    "import { MockLanguageModelV3 } from 'ai/test';",
    "import { createToolHost } from 'toolshed';",
    "import { aiSdkTools } from 'toolshed/ai-sdk';",
    'const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };',
    "const call = (toolCallId, path) => ({ type: 'tool-call', toolCallId, toolName: 'read_file', input: JSON.stringify({ path }) });",
    'let step = 0;',
    'const model = new MockLanguageModelV3({ doGenerate: async () => (step++ === 0',
    "  ? { content: [call('c1', 'notes.txt'), call('c2', 'missing.txt')], finishReason: { unified: 'tool-calls' }, usage, warnings: [] }",
    "  : { content: [{ type: 'text', text: 'read it' }], finishReason: { unified: 'stop' }, usage, warnings: [] }) });",
    'const host = await createToolHost();',
    "const result = await generateText({ model, tools: await aiSdkTools(host), stopWhen: stepCountIs(3), prompt: 'read notes.txt' });",
    "const sent = model.doGenerateCalls[1].prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content.map((p) => [p.toolCallId, p.output.type, p.output.value]));",
    'console.log(JSON.stringify({ text: result.text, sent }));',
    'await host.close();',
  ],
  '@openai/agents': [
    "import { Agent, OpenAIProvider, run, setTracingDisabled } from '@openai/agents';",
    "import { createToolHost } from 'toolshed';",
    "import { openAiAgentsTools } from 'toolshed/openai-agents';",
    'setTracingDisabled(true);',
    "const provider = new OpenAIProvider({ baseURL: process.env.SCRIPTED_BASE_URL, apiKey: 'test', useResponses: false });",
    'const host = await createToolHost();',
    "const agent = new Agent({ name: 'notes', instructions: 'Use the tools.', model: await provider.getModel('scripted'), tools: await openAiAgentsTools(host) });",
    "const result = await run(agent, 'read notes.txt');",
    'console.log(JSON.stringify({ text: result.finalOutput }));',
    'await host.close();',
  ],
  langchain: [
    "import { createAgent, FakeToolCallingModel, ToolMessage } from 'langchain';",
    "import { createToolHost } from 'toolshed';",
    "import { langchainTools } from 'toolshed/langchain';",
    "const calls = [{ name: 'read_file', args: { path: 'notes.txt' }, id: 'c1' }, { name: 'read_file', args: { path: 'missing.txt' }, id: 'c2' }];",
    'const model = new FakeToolCallingModel({ toolCalls: [calls, []] });',
    'const host = await createToolHost();',
    'const agent = createAgent({ model, tools: await langchainTools(host) });',
    "const result = await agent.invoke({ messages: [{ role: 'user', content: 'read notes.txt' }] });",
    'const sent = result.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, m.status, m.content]);',
    'console.log(JSON.stringify({ sent }));',
    'await host.close();',
  ],
};

/** The type check of every adapter whose framework `frameworks` holds, against the app's framework types. */
const TYPED_USES: Record<string, string[]> = {
  ai: [
    "import { generateText, type LanguageModel, type ToolSet } from 'ai';",
    "import { aiSdkTools, liveAiSdkTools, ToolshedToolError } from 'toolshed/ai-sdk';",
    'declare const model: LanguageModel;',
    'const tools: ToolSet = await aiSdkTools(host, { sessionId: "s" });',
    'const live = await liveAiSdkTools(host);',
    "await generateText({ model, tools: live.tools, prepareStep: live.prepareStep, prompt: 'x' });",
    "console.log(Object.keys(tools), new ToolshedToolError('t', { ok: false, code: 'TOOL_FAILED', message: 'm' }).code);",
  ],
  '@openai/agents': [
    "import { Agent } from '@openai/agents';",
    "import { liveOpenAiAgentsTools, openAiAgentsTools } from 'toolshed/openai-agents';",
    "const agent = new Agent({ name: 'a', instructions: 'x', tools: await openAiAgentsTools(host, { strict: true }) });",
    "const liveAgent = new Agent({ name: 'b', instructions: 'x', tools: (await liveOpenAiAgentsTools(host)).tools });",
    'console.log(agent.tools.length, liveAgent.name);',
  ],
  langchain: [
    "import { createAgent, FakeToolCallingModel } from 'langchain';",
    "import { langchainTools, liveLangchainTools } from 'toolshed/langchain';",
    'const lcModel = new FakeToolCallingModel({});',
    'const lcAgent = createAgent({ model: lcModel, tools: await langchainTools(host) });',
    'const lcLive = createAgent({ model: lcModel, middleware: [await (await liveLangchainTools(host)).middleware()] });',
    'console.log(typeof lcAgent.invoke, typeof lcLive.invoke);',
  ],
};

/** The adapters of `frameworks`, installed strictly in the app `setup` gives, each running one agent turn. */
function frameworkSuite(label: string, setup: (apps: Awaited<ReturnType<typeof packedApps>>) => string, frameworks: Framework[]) {
  let dir: string;
  const appDir = () => dir;
  const has = (name: string) => frameworks.some((f) => f.name === name);
  let printed: string | undefined;
  /** The envelope the model must read for the failed call: what `toolshed call` prints in the same app. */
  const envelope = () => {
    if (printed === undefined) {
      const result = run(bin, ['call', 'read_file', '{"path":"missing.txt"}'], appDir());
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stdout)).toMatchObject({ code: 'TOOL_FAILED' });
      printed = result.stdout.trim();
    }
    return printed;
  };
  const agentTurn = async (framework: string, env: Record<string, string> = {}) => {
    const file = path.join(appDir(), `agent-${framework.replace(/\W/g, '-')}.mjs`);
    writeFileSync(file, AGENT_SCRIPTS[framework]!.join('\n'));
    const result = await runAsync(process.execPath, [file], appDir(), env);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };

  describe(`the frameworks' ${label} in a fresh app (docs/embedding.md)`, () => {
    beforeAll(async () => {
      const apps = await packedApps();
      bin = apps.bin;
      dir = setup(apps);
    }, 600_000);

    it(`npm installed ${frameworks.map((f) => `${f.name} ${lockedVersion(f)}`).join(', ')} beside toolshed, and finds every peer range met`, () => {
      for (const framework of frameworks) {
        const pkg = JSON.parse(readFileSync(path.join(path.dirname(appDir()), 'node_modules', framework.name, 'package.json'), 'utf8'));
        expect(pkg.version, framework.name).toBe(lockedVersion(framework));
      }
      // `npm ls` exits non-zero on a peer dependency outside its range (an "invalid" edge).
      const ls = spawnSync('npm', ['ls', '--all', '--offline'], { cwd: path.dirname(appDir()), encoding: 'utf8', env: NPM_ENV });
      expect(ls.status, ls.stdout + ls.stderr).toBe(0);
      expect(ls.stdout).not.toMatch(/invalid|UNMET (?!OPTIONAL)/);
    });

    // One agent turn for each framework this app holds (LangChain is in one app only).
    if (has('ai'))
      it('toolshed/ai-sdk runs a generateText turn: the result, and the failure as the envelope', async () => {
        const out = await agentTurn('ai');
        expect(out.text).toBe('read it');
        expect(out.sent).toHaveLength(2);
        expect(out.sent[0]).toEqual(['c1', 'text', expect.stringMatching(/1\|first line of the notes/)]);
        expect(out.sent[1]).toEqual(['c2', 'error-text', envelope()]);
      });

    if (has('@openai/agents'))
      it('toolshed/openai-agents runs an Agent turn against a scripted OpenAI-compatible server: the result, and the failure as the envelope', async () => {
        const server = await startScriptedServer([{ tool_calls: [toolCall('c1', 'read_file', { path: 'notes.txt' }), toolCall('c2', 'read_file', { path: 'missing.txt' })] }, { content: 'read it' }]);
        try {
          const out = await agentTurn('@openai/agents', { SCRIPTED_BASE_URL: server.baseURL, OPENAI_AGENTS_DISABLE_TRACING: '1' });
          expect(out.text).toBe('read it');
          const replies = server.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]);
          expect(replies).toEqual([
            ['c1', expect.stringMatching(/1\|first line of the notes/)],
            ['c2', envelope()],
          ]);
        } finally {
          await server.close();
        }
      });

    if (has('langchain'))
      it('toolshed/langchain runs a createAgent turn: the result, and the failure as an error ToolMessage holding the envelope', async () => {
        const out = await agentTurn('langchain');
        expect(out.sent).toEqual([
          ['c1', 'success', expect.stringMatching(/1\|first line of the notes/)],
          ['c2', 'error', envelope()],
        ]);
      });

    it("types each adapter against the app's framework", () => {
      const file = path.join(appDir(), 'typed-agent.ts');
      const uses = frameworks.flatMap((f) => TYPED_USES[f.name] ?? []);
      const imports = uses.filter((line) => line.startsWith('import '));
      const body = uses.filter((line) => !line.startsWith('import '));
      writeFileSync(file, [...imports, "import { createToolHost } from 'toolshed';", 'const host = await createToolHost();', ...body].join('\n'));
      // The exports map is what resolution reads; the host API test above covers the other resolutions.
      const check = run(process.execPath, [TSC, '--noEmit', '--strict', '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--types', 'node', '--skipLibCheck', file], appDir());
      expect(check.stdout + check.stderr).toBe('');
    });
  });
}

frameworkSuite('previous majors', ({ app, bin }) => ownFolder(app, bin), PREVIOUS);
frameworkSuite('current majors', ({ appCurrent, bin }) => ownFolder(appCurrent, bin), CURRENT);

/**
 * A folder of `app`'s own for the agent turns: notes.txt and the config the README's tour
 * starts with (the file tools), trusted as an operator would. Node finds the app's
 * node_modules from it.
 */
function ownFolder(app: string, bin: string): string {
  const dir = path.join(app, 'agents');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'notes.txt'), 'first line of the notes\nsecond line\n');
  writeFileSync(path.join(dir, 'toolshed.config.mjs'), "export default { root: '.', enable: ['file'] };\n");
  expect(run(bin, ['trust'], dir)).toMatchObject({ code: 0 });
  return dir;
}
