/**
 * toolshed/openai-agents against @openai/agents 0.19 (the previous major: on 0.x each minor is
 * one), installed beside 0.20 as `openai-agents-v19`. The adapter (and the suite) import the
 * framework as `@openai/agents`, as an app's code does; here that name resolves to the real 0.19
 * package, in this file only. The suite's first test checks it did.
 */
import { vi } from 'vitest';
import * as agents from 'openai-agents-v19';
import { openAiAgentsSuite } from './openai-agents.suite.js';

vi.mock('@openai/agents', () => import('openai-agents-v19'));

openAiAgentsSuite({ installedAs: 'openai-agents-v19', module: agents, minor: '0.19' });
