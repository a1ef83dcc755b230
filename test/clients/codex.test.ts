/**
 * Codex (`codex exec`) starts `toolshed serve` from its CODEX_HOME/config.toml and drives it with a
 * scripted fake OpenAI Responses API. It starts toolshed through the recorder
 * (fixtures/record-stdio.mjs), which shows the revision it negotiates: 2025-06-18 (its
 * `mcp_2026_07_28` feature flag changes nothing for a stdio server in this version).
 */
import path from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe } from 'vitest';
import { responsesAgentRequests, responsesTurn, startFakeResponses } from './fixtures/fake-openai-responses.js';
import type { FakeServer } from './fixtures/http-fake.js';
import { agentRunChecks, clientProject, MODULES, type ClientProject, type ClientRun } from './harness.js';

const CODEX = path.join(MODULES, '.bin/codex');

/** A TOML string (JSON's escapes are TOML's for these). */
const toml = (value: string) => JSON.stringify(value);

describe('Codex', () => {
  let project: ClientProject;
  let fake: FakeServer;
  let run: ClientRun;
  let log: string;

  beforeAll(async () => {
    project = await clientProject();
    fake = await startFakeResponses();
    const codexHome = path.join(project.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    const serve = project.recordedServe();
    log = serve.log;
    const env = Object.entries(serve.env).map(([key, value]) => `${key} = ${toml(value)}`);
    writeFileSync(
      path.join(codexHome, 'config.toml'),
      [
        'model = "gpt-5.1-codex"',
        'model_provider = "fake"',
        'approval_policy = "never"',
        'sandbox_mode = "read-only"',
        'check_for_update_on_startup = false',
        'suppress_unstable_features_warning = true',
        '',
        // Codex refreshes a server's tools on notifications/tools/list_changed only behind this feature flag.
        '[features]',
        'mcp_tool_list_changed = true',
        // The features that reach the network (plugin marketplaces, ChatGPT apps, remote model lists): off.
        'apps = false',
        'plugins = false',
        'remote_plugin = false',
        'plugin_sharing = false',
        'api_key_model_discovery = false',
        'tool_suggest = false',
        '',
        '[analytics]',
        'enabled = false',
        '',
        '[model_providers.fake]',
        'name = "fake"',
        `base_url = ${toml(`${fake.origin}/v1`)}`,
        'wire_api = "responses"',
        'env_key = "FAKE_OPENAI_KEY"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
        '[mcp_servers.toolshed]',
        `command = ${toml(serve.command)}`,
        `args = [${serve.args.map(toml).join(', ')}]`,
        'startup_timeout_sec = 120',
        'required = true',
        'tool_timeout_sec = 120',
        // exec cannot ask anyone: toolshed's tools run without a prompt, as an operator would configure a trusted
        // server.
        'default_tools_approval_mode = "approve"',
        '',
        '[mcp_servers.toolshed.env]',
        ...env,
        '',
      ].join('\n'),
    );
    run = await project.run(CODEX, ['exec', '--skip-git-repo-check', 'Check the toolshed tools.'], {
      ...project.baseEnv(),
      CODEX_HOME: codexHome,
      FAKE_OPENAI_KEY: 'sk-test-not-a-key',
    });
  }, 300_000);

  afterAll(async () => {
    await fake?.close();
    await project?.close();
  });

  agentRunChecks('2025-06-18', () => ({
    log,
    run,
    project,
    turns: () => responsesAgentRequests(fake).map((request) => responsesTurn(request.body)),
  }));
});
