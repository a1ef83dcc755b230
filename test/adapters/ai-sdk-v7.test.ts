/**
 * toolshed/ai-sdk against AI SDK 7, installed beside AI SDK 6 as `ai-v7`. The adapter (and the
 * suite) import the framework as `ai`, as an app's code does; here that name resolves to the
 * real AI SDK 7 package, in this file only. The suite's first test checks it did.
 */
import { vi } from 'vitest';
import * as ai from 'ai-v7';
import { aiSdkSuite } from './ai-sdk.suite.js';

vi.mock('ai', () => import('ai-v7'));
vi.mock('ai/test', () => import('ai-v7/test'));

aiSdkSuite({ installedAs: 'ai-v7', module: ai, major: 7 });
