import { createTestContext } from '../../../dist/boundary/plugin.js';
import plugin from '../index.js';

/** The handler of the tool named `name`. */
export function handler(name) {
  const found = plugin.tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found.handler;
}

/**
 * A handler context like the host's, from toolshed's own test context: one session (`sessionId`,
 * or none), whose ctx.session keeps values in memory under the host's limits.
 */
export function makeCtx(sessionId, options = {}) {
  return createTestContext({ ...(sessionId === undefined ? {} : { sessionId }), ...options });
}
