/**
 * `toolshed/plugin`: the plugin authoring API (plugin-api.ts) and `createTestContext`, the
 * context a plugin's own tests hand a handler (test-context.ts).
 */
export * from './plugin-api.js';
export { createTestContext, type TestContext, type TestContextOptions } from './test-context.js';
