/**
 * Layer 3 as the user meets it, through a host: descriptions that name only exposed tools, the
 * warning when one still names a hidden tool (in explain, and as a warning event when a check in
 * the plugin's worker flips), and the memo. The rewriting's rules (the key set, layer 1 disabling,
 * no warning when all is exposed, sorting whatever the plugins' order) are tested on the stage:
 * test/definitions/descriptions.test.ts and test/unit/availability.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fixtureOptions, tempDir, withHost } from '../helpers.js';

type OpenAITool = { type: string; function: { name: string; description: string; parameters: object } };

const describeTool = (defs: unknown[], name: string) =>
  (defs as OpenAITool[]).find((d) => d.function.name === name)?.function.description;

describe('layer 3: schema correction', () => {
  it('seed: browse drops "prefer web_search" when web_search is hidden for a missing key, and explain flags summarize, which still names it', async () => {
    await withHost(fixtureOptions(['seed']), async (host) => {
      const defs = await host.definitions({ format: 'openai' });
      expect(describeTool(defs, 'web_search')).toBeUndefined();
      expect(describeTool(defs, 'browse')).toBe(
        'Open a URL and return its readable text. Only known URLs can be opened.',
      );
      const report = host.explain();
      expect(report.tools.find((t) => t.name === 'web_search')?.reason).toBe(
        'missing environment variable SEARCH_API_KEY',
      );
      expect(report.tools.find((t) => t.name === 'summarize')?.warnings).toEqual([
        'description of summarize mentions web_search, which is not exposed',
      ]);
      expect(report.warnings).toContain('description of summarize mentions web_search, which is not exposed');
      expect(report.tools.find((t) => t.name === 'browse')?.warnings).toEqual([]);
    });
  });

  it('emits a warning event when a check flips and a description now names a hidden tool', async () => {
    const work = tempDir();
    try {
      await withHost(
        fixtureOptions(['probe'], {
          cwd: work.dir,
          env: { PATH: process.env.PATH },
          config: { checks: { graceMs: 0 } },
        }),
        async (host) => {
          const warnings: string[] = [];
          host.on('warning', (m) => warnings.push(m));
          await host.definitions();
          expect(warnings).toEqual([]);
          writeFileSync(path.join(work.dir, 'own.mode'), 'false');
          host.invalidateChecks();
          await host.definitions();
          expect(warnings).toEqual(['description of mentions_own mentions own_check, which is not exposed']);
        },
      );
    } finally {
      work.cleanup();
    }
  });

  it('returns the memoized result when nothing changed: same object, no worker round trip', async () => {
    await withHost(fixtureOptions(['probe'], { env: { PATH: process.env.PATH } }), async (host) => {
      const first = await host.definitions();
      const completed = host.explain().plugins[0]!.pool!.completed;
      const second = await host.definitions();
      expect(second).toBe(first);
      expect(host.explain().plugins[0]!.pool!.completed).toBe(completed);
      expect(host.explain().tools.find((t) => t.name === 'shared_a')?.probes).toBe(1);
    });
  });
});

describe('provider formats', () => {
  const options = () =>
    fixtureOptions(['kitchen'], { config: { toolsets: { only: { tools: ['typed'] } }, enable: ['only'] } });

  it('openai, responses, anthropic and mcp wrap the same schema', async () => {
    await withHost(options(), async (host) => {
      const [openai] = (await host.definitions({ format: 'openai' })) as Array<Record<string, any>>;
      expect(openai!.type).toBe('function');
      expect(openai!.function.name).toBe('typed');
      expect(openai!.function.parameters.required).toEqual(['path', 'mode']);
      const [responses] = (await host.definitions({ format: 'responses' })) as Array<Record<string, any>>;
      expect(responses).toMatchObject({ type: 'function', name: 'typed', description: 'Strictly typed arguments.' });
      expect(responses!.parameters).toEqual(openai!.function.parameters);
      const [anthropic] = (await host.definitions({ format: 'anthropic' })) as Array<Record<string, any>>;
      expect(Object.keys(anthropic!).sort()).toEqual(['description', 'input_schema', 'name']);
      expect(anthropic!.input_schema.type).toBe('object');
      const [mcp] = (await host.definitions({ format: 'mcp' })) as Array<Record<string, any>>;
      expect(Object.keys(mcp!).sort()).toEqual(['description', 'inputSchema', 'name']);
    });
  });

  it('gemini: reduced to the OpenAPI subset Gemini accepts', async () => {
    await withHost(options(), async (host) => {
      const [tools] = (await host.definitions({ format: 'gemini' })) as Array<{
        functionDeclarations: Array<Record<string, any>>;
      }>;
      const [decl] = tools!.functionDeclarations;
      expect(decl!.name).toBe('typed');
      const text = JSON.stringify(decl);
      expect(text).not.toContain('additionalProperties');
      expect(decl!.parameters.properties.mode).toEqual({ enum: ['read', 'write'], type: 'string' });
      expect(decl!.parameters.required).toEqual(['path', 'mode']);
    });
  });

  it('rejects an unknown format', async () => {
    await withHost(options(), async (host) => {
      await expect(host.definitions({ format: 'cohere' as never })).rejects.toThrow(/unknown format 'cohere'/);
    });
  });
});
