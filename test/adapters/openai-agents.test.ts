/**
 * toolshed/openai-agents against @openai/agents 0.20, installed under its name (the suite is in
 * openai-agents.suite.ts).
 */
import * as agents from '@openai/agents';
import { openAiAgentsSuite } from './openai-agents.suite.js';

openAiAgentsSuite({ installedAs: '@openai/agents', module: agents, minor: '0.20' });
