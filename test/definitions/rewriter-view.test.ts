/**
 * A schema rewriter (an embedder's definitions step) sees a narrow, read-only
 * view of each tool: what it declared and where it comes from, as data. No
 * record, plugin object or runner reaches it, so it cannot run a tool past
 * dispatch, hooks and approval.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RewriteContext, SchemaRewriter, ToolInfo } from 'toolshed';
import { tempDir, withHost } from '../helpers.js';

const work = tempDir();
afterAll(() => work.cleanup());

const dir = path.join(work.dir, 'seen');
mkdirSync(dir, { recursive: true });
writeFileSync(
  path.join(dir, 'package.json'),
  JSON.stringify({
    name: 'toolshed-plugin-seen',
    version: '1.0.0',
    type: 'module',
    main: 'index.js',
    toolshed: { apiVersion: 1 },
  }),
);
writeFileSync(
  path.join(dir, 'index.js'),
  `const obj = { type: 'object', properties: { q: { type: 'string' } } };
export default {
  apiVersion: 1,
  toolsets: { seen: { description: 'Seen tools' } },
  tools: [
    { name: 'lookup', toolset: 'seen', description: ['Look up.', { ifAvailable: ['hidden_one'], text: 'Or hidden_one.' }], parameters: obj, sandbox: true, annotations: { readOnlyHint: true }, handler: () => 'l' },
    { name: 'hidden_one', toolset: 'seen', description: 'Hidden.', parameters: obj, requires: { env: ['NOT_SET_ANYWHERE'] }, handler: () => 'h' },
  ],
};
`,
);

const KEYS = [
  'annotations',
  'codeCallable',
  'description',
  'longRunning',
  'name',
  'parameters',
  'plugin',
  'toolset',
  'trust',
];

describe('a schema rewriter', () => {
  it('is handed frozen, data-only views of the tools: no record, plugin object or runner', async () => {
    const applied: ToolInfo[] = [];
    let context: RewriteContext | undefined;
    const rewriter: SchemaRewriter = {
      appliesTo(tool) {
        applied.push(tool);
        return tool.name === 'lookup';
      },
      async rewrite(definition, seen) {
        context = seen;
        return { definition: { ...definition, description: `${definition.description} (rewritten)` } };
      },
    };
    await withHost(
      {
        cwd: work.dir,
        env: {},
        config: { builtins: false, cache: { enabled: false }, plugins: [{ package: dir, trust: 'trusted' }] },
        rewriters: [rewriter],
      },
      async (host) => {
        const defs = (await host.definitions({ format: 'mcp' })) as Array<{ name: string; description: string }>;
        expect(defs.find((d) => d.name === 'lookup')?.description).toBe('Look up. (rewritten)');
        const lookup = applied.find((tool) => tool.name === 'lookup')!;
        expect(Object.keys(lookup).sort()).toEqual(KEYS);
        expect(Object.isFrozen(lookup)).toBe(true);
        expect(lookup).toMatchObject({
          plugin: 'toolshed-plugin-seen',
          toolset: 'seen',
          description: ['Look up.', { ifAvailable: ['hidden_one'], text: 'Or hidden_one.' }],
          parameters: { type: 'object', properties: { q: { type: 'string' } } },
          annotations: { readOnlyHint: true },
          codeCallable: true,
          trust: 'trusted',
        });
        // Every registered tool, exposed or not, by the same views.
        expect([...context!.records.keys()].sort()).toEqual(['hidden_one', 'lookup']);
        expect(context!.records.get('lookup')).toBe(lookup);
        expect(context!.records.get('hidden_one')).toMatchObject({ name: 'hidden_one', codeCallable: false });
        expect([...context!.exposed.keys()]).toEqual(['lookup']);
        for (const tool of context!.records.values()) {
          expect(Object.keys(tool).sort()).toEqual(KEYS);
          expect(typeof tool.plugin).toBe('string');
        }
      },
    );
  });
});
