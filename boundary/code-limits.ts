/**
 * The default limits of one execute_code script, in one place: the host's
 * config (`codeExecution`) and `createTestContext()`'s `sandboxTools` read them
 * here; config.schema.json and docs/configuration.md repeat them for readers,
 * held equal by test/config/code-limits.test.ts.
 */
import type { CodeLimits } from './plugin-api.js';

/** `codeExecution`'s defaults: a 30 s deadline, 64 MB of QuickJS memory, 50 tool calls, 20000 characters of output. */
export const DEFAULT_CODE_LIMITS: Readonly<CodeLimits> = Object.freeze({
  timeoutMs: 30_000,
  memoryMb: 64,
  maxToolCalls: 50,
  maxOutputChars: 20_000,
});
