// @ts-check
/**
 * The `code` toolset: execute_code runs model-written JavaScript in a QuickJS
 * sandbox (toolshed's sandbox/code runtime) whose only way out is `tools.*`,
 * each call going back through the host's full dispatch pipeline.
 *
 * The runtime comes from toolshed's toolkit, `toolshed/toolkit` (docs/plugins.md, "The toolkit"),
 * imported by the path of its file in the package: this plugin ships inside toolshed under a
 * package.json of its own, where Node does not resolve the name 'toolshed' (self-reference stops
 * at the nearest package.json). A third-party code plugin imports 'toolshed/toolkit'. The toolkit
 * loads the QuickJS engine on the first run.
 */
import { runCode } from '../../dist/sandbox/toolkit.js';

/** @typedef {Awaited<ReturnType<import('toolshed/toolkit').RunCodeOptions['callTool']>>} CallOutcome */

/**
 * Turns ctx.callTool (parsed value or a thrown Error with a code) into the
 * runtime's structured outcome.
 * @param {import('toolshed/plugin').ToolContext} ctx
 */
function bridge(ctx) {
  return async (/** @type {string} */ name, /** @type {unknown} */ args) => {
    try {
      const value = await ctx.callTool(name, args);
      return { ok: /** @type {const} */ (true), text: typeof value === 'string' ? value : JSON.stringify(value) };
    } catch (error) {
      // ctx.callTool rejects with the host's error, whose code is passed on as it is.
      const e = /** @type {{ code?: Extract<CallOutcome, { ok: false }>['code'], message?: string }} */ (error);
      return { ok: /** @type {const} */ (false), code: e.code ?? 'TOOL_FAILED', message: e.message ?? String(error) };
    }
  };
}

/** @type {import('toolshed/plugin').ToolSpec<{ code: string }>} */
const executeCode = {
  name: 'execute_code',
  toolset: 'code',
  // Rebuilt by the host from the sandbox's real exports; this text is only the fallback.
  description: 'Run JavaScript (top-level await) that calls tools through the global `tools` object.',
  parameters: {
    type: 'object',
    properties: {
      code: {
        type: 'string',
        minLength: 1,
        description:
          'JavaScript with top-level await. `await tools.NAME(args)` calls a tool; console.log is captured; ' +
          '`return` a value to get it back as `result`.',
      },
    },
    required: ['code'],
    additionalProperties: false,
  },
  // The script's own deadline (codeExecution.timeoutMs) is enforced inside; this is the backstop.
  // A script is code, not data (data travels through tools), so 1 MB of it is plenty.
  limits: { timeoutMs: 300_000, maxArgsBytes: 1024 * 1024 },
  codeCallable: false,
  // The script changes nothing by itself: each tool it calls goes through dispatch and its own approval.
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  handler: async ({ code }, ctx) => {
    const { tools, limits, searchTool } = await ctx.sandboxTools();
    return runCode({
      code,
      tools,
      callTool: bridge(ctx),
      signal: ctx.signal,
      ...limits,
      ...(searchTool ? { searchTool } : {}),
    });
  },
};

export default {
  apiVersion: 1,
  toolsets: { code: { description: 'Run scripts that call other tools in a sandbox' } },
  permissions: { network: false, env: [], fsRead: [], fsWrite: [] },
  tools: [executeCode],
};
