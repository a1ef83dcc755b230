/**
 * Gemini CLI (`gemini -p`) starts `toolshed serve` from its settings.json `mcpServers` (2025-06-18, as the recorder
 * shows) and drives it with a scripted fake Gemini API.
 */
import path from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe } from 'vitest';
import { geminiAgentRequests, geminiTurn, startFakeGemini } from './fixtures/fake-gemini.js';
import type { FakeServer } from './fixtures/http-fake.js';
import { agentRunChecks, clientProject, MODULES, type ClientProject, type ClientRun } from './harness.js';

const GEMINI = path.join(MODULES, '@google/gemini-cli/bundle/gemini.js');

let project: ClientProject;
let fake: FakeServer;
let run: ClientRun;
let log: string;

beforeAll(async () => {
  project = await clientProject();
  fake = await startFakeGemini();
  const { log: messages, ...serve } = project.recordedServe();
  log = messages;
  const settingsDir = path.join(project.home, '.gemini');
  mkdirSync(settingsDir, { recursive: true });
  writeFileSync(
    path.join(settingsDir, 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      // trust: the operator's own server, its tools run without a confirmation.
      mcpServers: { toolshed: { ...serve, trust: true, timeout: 120_000 } },
    }),
  );
  run = await project.run(
    process.execPath,
    [GEMINI, '-p', 'Check the toolshed tools.', '-m', 'gemini-2.5-flash', '--output-format', 'text'],
    {
      ...project.baseEnv(),
      GEMINI_API_KEY: 'test-not-a-key',
      GOOGLE_GEMINI_BASE_URL: fake.origin,
      GEMINI_CLI_NO_RELAUNCH: '1',
    },
  );
}, 300_000);

afterAll(async () => {
  await fake?.close();
  await project?.close();
});

describe('Gemini CLI', () => {
  agentRunChecks('2025-06-18', () => ({
    log,
    run,
    project,
    turns: () => geminiAgentRequests(fake).map((request) => geminiTurn(request.body)),
  }));
});
