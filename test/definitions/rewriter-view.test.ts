/**
 * An embedder's schema rewriter (`ToolHostOptions.rewriters`) sees each tool as a frozen,
 * read-only view (name, plugin, toolset, codeCallable, annotations), never the registry's record,
 * which holds its plugin's runner and could run the tool past dispatch, hooks and approval.
 */
import { describe, expect, it } from 'vitest';
import type { RewriteContext, RewriterTool, SchemaRewriter } from 'toolshed';
import { fixtureOptions, withHost } from '../helpers.js';

describe('a schema rewriter', () => {
  it('sees frozen views of the tools, in appliesTo and in its context', async () => {
    const seen: RewriterTool[] = [];
    let context: RewriteContext | undefined;
    const rewriter: SchemaRewriter = {
      appliesTo: (tool) => (seen.push(tool), tool.name === 'hello'),
      rewrite: async (definition, ctx) => ((context = ctx), { definition: { ...definition, description: `${definition.description} (rewritten)` } }),
    };
    await withHost({ ...fixtureOptions(['greetings']), rewriters: [rewriter] }, async (host) => {
      const definitions = (await host.definitions({ format: 'mcp' })) as Array<{ name: string; description: string }>;
      expect(definitions.find((d) => d.name === 'hello')?.description).toBe('Says hello. (rewritten)');
    });
    const hello = seen.find((tool) => tool.name === 'hello')!;
    expect(hello).toEqual({ name: 'hello', plugin: 'toolshed-plugin-greetings', toolset: 'greetings', codeCallable: false, annotations: {} });
    expect(Object.isFrozen(hello) && Object.isFrozen(hello.annotations)).toBe(true);
    expect([...context!.tools.keys()].sort()).toEqual(['hello', 'wave']);
    expect(context!.tools.get('wave')).toEqual({ name: 'wave', plugin: 'toolshed-plugin-greetings', toolset: 'gestures', codeCallable: false, annotations: {} });
    expect(context!.tools.get('hello')).toBe(hello);
    expect([...context!.tools.values()].every((tool) => Object.keys(tool).join() === 'name,plugin,toolset,codeCallable,annotations')).toBe(true);
  });
});
