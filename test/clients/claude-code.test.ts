/**
 * Claude Code (the native binary from npm) starts `toolshed serve` from its --mcp-config and drives
 * it with a scripted fake Anthropic API. It speaks 2026-07-28 (server/discover; the tool list's
 * changes arrive on its subscriptions/listen stream), which the recorder shows.
 */
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe } from 'vitest';
import { anthropicAgentRequests, anthropicTurn, startFakeAnthropic } from './fixtures/fake-anthropic.js';
import type { FakeServer } from './fixtures/http-fake.js';
import { agentRunChecks, clientProject, MODULES, type ClientProject, type ClientRun } from './harness.js';

const CLAUDE = path.join(MODULES, '@anthropic-ai/claude-code-linux-x64/claude');

let project: ClientProject;
let fake: FakeServer;
let run: ClientRun;
let log: string;

beforeAll(async () => {
  project = await clientProject();
  fake = await startFakeAnthropic();
  const mcpConfig = path.join(project.dir, 'mcp.json');
  const { log: messages, ...serve } = project.recordedServe();
  log = messages;
  writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { toolshed: { type: 'stdio', ...serve } } }));
  run = await project.run(
    CLAUDE,
    [
      '-p',
      'Check the toolshed tools.',
      '--mcp-config',
      mcpConfig,
      '--strict-mcp-config',
      '--allowedTools',
      'mcp__toolshed',
      '--output-format',
      'text',
      '--model',
      'claude-sonnet-4-5',
    ],
    {
      ...project.baseEnv(),
      CLAUDE_CONFIG_DIR: path.join(project.home, '.claude'),
      ANTHROPIC_BASE_URL: fake.origin,
      ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key',
      // Claude Code defers MCP tools behind its own ToolSearch by default: the model must see them listed.
      ENABLE_TOOL_SEARCH: 'false',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
  );
}, 300_000);

afterAll(async () => {
  await fake?.close();
  await project?.close();
});

describe('Claude Code', () => {
  agentRunChecks('2026-07-28', () => ({
    log,
    run,
    project,
    turns: () => anthropicAgentRequests(fake).map((request) => anthropicTurn(request.body)),
  }));
});
