// @ts-check
/**
 * The `code` toolset: execute_code runs model-written JavaScript in a QuickJS
 * sandbox (toolshed's sandbox/code runtime) whose only way out is `tools.*`,
 * each call going back through the host's full dispatch pipeline.
 *
 * The runtime ships inside the toolshed package next to this plugin, so it is
 * imported by path; a third-party code plugin would depend on toolshed instead.
 */
const RUNTIME = new URL('../../dist/sandbox/code/runtime.js', import.meta.url).href;

/** @type {Promise<typeof import('../../dist/sandbox/code/runtime.js')> | undefined} */
let runtime;

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
      const e = /** @type {{ code?: string, message?: string }} */ (error);
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
        description: 'JavaScript with top-level await. `await tools.NAME(args)` calls a tool; console.log is captured; `return` a value to get it back as `result`.',
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
    runtime ??= import(RUNTIME);
    const { runCode } = await runtime;
    const { tools, limits, searchTool } = await ctx.sandboxTools();
    return runCode({ code, tools, callTool: bridge(ctx), signal: ctx.signal, ...limits, ...(searchTool ? { searchTool } : {}) });
  },
};

export default {
  apiVersion: 1,
  toolsets: { code: { description: 'Run scripts that call other tools in a sandbox' } },
  permissions: { network: false, env: [], fsRead: [], fsWrite: [] },
  tools: [executeCode],
};
