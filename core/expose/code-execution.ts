/**
 * execute_code's place in the pipeline: which tools a script may call,
 * and the definitions step that rebuilds its description from what the
 * code runtime actually exports (evaluated inside a QuickJS context, not taken
 * from the input list).
 */
import type { ResolvedConfig } from '../config/config.js';
import type { RewriteContext, SchemaRewriter, ToolInfo } from './public-types.js';
import type { ToolDefinition } from '../providers/types.js';
import type { CodeLimits, CodeCallableTool } from '../../boundary/plugin-api.js';
import { SEARCH_TOOL } from './search-definition.js';

/** The reserved name of the code-execution tool. */
export const CODE_TOOL = 'execute_code';

/**
 * The tools code may call: config `codeExecution.tools`, else every tool
 * flagged `codeCallable: true`, always intersected with the exposed set. Empty
 * means empty — never all tools.
 */
export function sandboxTools(
  config: ResolvedConfig,
  exposed: ReadonlyMap<string, ToolDefinition>,
  tools: Iterable<Pick<ToolInfo, 'name' | 'codeCallable'>>,
): CodeCallableTool[] {
  const wanted = config.codeExecution.tools ?? [...tools].filter((tool) => tool.codeCallable).map((tool) => tool.name);
  return wanted
    .filter((name) => name !== CODE_TOOL && exposed.has(name))
    .sort()
    .map((name) => {
      const def = exposed.get(name)!;
      return def.outputSchema
        ? { name, description: def.description, parameters: def.parameters, outputSchema: def.outputSchema }
        : { name, description: def.description, parameters: def.parameters };
    });
}

/**
 * The host tool behind `tools.search` when some of the tools code may call are
 * deferred; code may call deferred tools too (loading is about what the model is shown).
 */
export function searchToolFor(tools: readonly CodeCallableTool[], deferred: ReadonlySet<string>): string | undefined {
  return tools.some((tool) => deferred.has(tool.name)) ? SEARCH_TOOL : undefined;
}

/** The limits of one script, from config. */
export function codeLimits(config: ResolvedConfig): CodeLimits {
  const { timeoutMs, memoryMb, maxToolCalls, maxOutputChars } = config.codeExecution;
  return { timeoutMs, memoryMb, maxToolCalls, maxOutputChars };
}

type Runtime = typeof import('../../sandbox/code/runtime.js');
type Declarations = typeof import('../../sandbox/code/declarations.js');

/**
 * Rebuilds execute_code's description from the sandbox's real exports. The
 * QuickJS module loads only when a host exposes execute_code; a probe is
 * reused while the tool list is unchanged. If the sandbox cannot start, the
 * tool is hidden with the reason. Deferred tools are installed (code may call
 * them) but not declared: the description declares `tools.search` instead,
 * which finds them, so a large catalogue does not inflate this description.
 */
export function codeExecutionRewriter(
  config: () => ResolvedConfig,
  load: () => Promise<[Runtime, Declarations]> = () =>
    Promise.all([import('../../sandbox/code/runtime.js'), import('../../sandbox/code/declarations.js')]),
): SchemaRewriter {
  let modules: Promise<[Runtime, Declarations]> | undefined;
  let memo: { key: string; exported: string[] } | undefined;
  return {
    // Its output follows from the config and the exposed tools alone (a failure to start hides the tool, and is asked
    // again).
    pure: true,
    appliesTo: (tool) => tool.name === CODE_TOOL,
    async rewrite(definition, context: RewriteContext) {
      const specs = sandboxTools(config(), context.exposed, context.records.values());
      const searchTool = searchToolFor(specs, context.deferred);
      let exported: string[];
      try {
        modules ??= load();
        const [runtime] = await modules;
        const key = JSON.stringify([specs, searchTool ?? null]);
        if (memo?.key !== key) memo = { key, exported: await runtime.probeExports(specs, searchTool) };
        exported = memo.exported;
      } catch (error) {
        modules = undefined;
        return { hidden: `the code sandbox cannot start: ${(error as Error)?.message ?? String(error)}` };
      }
      const [, declarations] = await modules;
      const actual = specs.filter((spec) => exported.includes(spec.name) && !context.deferred.has(spec.name));
      const search = searchTool !== undefined && exported.includes(declarations.SEARCH_FUNCTION);
      return {
        definition: {
          ...definition,
          description: declarations.describeExecuteCode(actual, codeLimits(config()), { search }),
        },
      };
    },
  };
}
