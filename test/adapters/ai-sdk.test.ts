/** toolshed/ai-sdk against AI SDK 6, installed as `ai` (the suite is in ai-sdk.suite.ts). */
import * as ai from 'ai';
import { aiSdkSuite } from './ai-sdk.suite.js';

aiSdkSuite({ installedAs: 'ai', module: ai, major: 6 });
