/**
 * Claude Code (the native binary from npm) starts `toolshed serve` from its --mcp-config and drives
 * it with a scripted fake Anthropic API. It speaks 2026-07-28 (server/discover; the tool list's
 * changes arrive on its subscriptions/listen stream), which the recorder shows.
 */
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicAgentRequests, anthropicTurn, startFakeAnthropic } from './fixtures/fake-anthropic.js';
import { DONE_TEXT } from './fixtures/conversation.js';
import type { FakeServer } from './fixtures/http-fake.js';
import { clientProject, expectConversation, MODULES, negotiated, recorded, type ClientProject, type ClientRun } from './harness.js';

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
  run = await project.run(CLAUDE, ['-p', 'Check the toolshed tools.', '--mcp-config', mcpConfig, '--strict-mcp-config', '--allowedTools', 'mcp__toolshed', '--output-format', 'text', '--model', 'claude-sonnet-4-5'], {
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
  });
}, 300_000);

afterAll(async () => {
  await fake?.close();
  await project?.close();
});

describe('Claude Code', () => {
  it('negotiates 2026-07-28', () => {
    expect(negotiated(recorded(log))).toBe('2026-07-28');
  });

  it('runs the scripted conversation to its final answer', () => {
    expect(run.code, run.stderr.slice(-4000)).toBe(0);
    expect(run.stdout).toContain(DONE_TEXT);
  });

  it('shows the model the tools, a result, an error envelope, and the tool a tool_search loaded', () => {
    expectConversation(anthropicAgentRequests(fake).map((request) => anthropicTurn(request.body)));
  });

  it('reaches no network', () => {
    expect(project.trap.attempts).toEqual([]);
  });
});
