import { describe, expect, it } from 'vitest';
import { describeExecuteCode } from '#internal/sandbox/code/declarations.js';
import { probeExports, type CodeToolSpec } from '#internal/sandbox/code/runtime.js';
import { FILE_TOOLS, LIMITS } from './helpers.js';

const SEARCH: CodeToolSpec = {
  name: 'web_search',
  description: 'Search the web.',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      freshness: { type: 'string', enum: ['day', 'week', 'month'] },
      filters: {
        type: 'object',
        properties: { site: { type: 'string' }, lang: { type: 'string' } },
        required: ['site'],
      },
    },
    required: ['query'],
  },
};

/** The function names declared inside the description's `declare const tools` block. */
function declaredNames(description: string): string[] {
  const block = /declare const tools: \{\n([\s\S]*?)\n\};/.exec(description)?.[1] ?? '';
  return [...block.matchAll(/^ {2}(\w+)\(args/gm)].map((match) => match[1] ?? '');
}

describe('probeExports', () => {
  it('reports exactly the functions installed on `tools`', async () => {
    expect(await probeExports([...FILE_TOOLS, SEARCH])).toEqual(['read_file', 'list_files', 'web_search']);
  });

  it('reports none for an empty tool list', async () => {
    expect(await probeExports([])).toEqual([]);
  });

  it('reports what the context holds, not the input list', async () => {
    const odd: CodeToolSpec[] = [
      ...FILE_TOOLS,
      { name: 'read_file', description: 'duplicate', parameters: {} },
      { name: 'not a tool name', description: 'invalid', parameters: {} },
    ];
    expect(await probeExports(odd)).toEqual(['read_file', 'list_files']);
  });
});

describe('execute_code description built from the probe', () => {
  it('declares exactly the exported functions with their argument types', async () => {
    const specs = [...FILE_TOOLS, SEARCH];
    const exported = await probeExports(specs);
    const description = describeExecuteCode(
      specs.filter((spec) => exported.includes(spec.name)),
      LIMITS,
    );

    expect(declaredNames(description)).toEqual(['read_file', 'list_files', 'web_search']);
    expect(description).toContain(
      'read_file(args: { /** Path relative to the workspace */ path: string }): Promise<unknown>;',
    );
    expect(description).toContain('list_files(args?: {}): Promise<unknown>;');
    expect(description).toContain(
      'web_search(args: { query: string; freshness?: "day" | "week" | "month"; filters?: { site: string; lang?: string } }): Promise<unknown>;',
    );
    expect(description).toContain('/** Search the web. */');
  });

  it('follows a smaller tool list: a dropped tool disappears from the declarations', async () => {
    const exported = await probeExports([FILE_TOOLS[0] as CodeToolSpec]);
    const description = describeExecuteCode(
      [FILE_TOOLS[0] as CodeToolSpec].filter((spec) => exported.includes(spec.name)),
      LIMITS,
    );
    expect(declaredNames(description)).toEqual(['read_file']);
    expect(description).not.toContain('list_files');
    expect(description).not.toContain('web_search');
  });

  it('lists no functions, and says so, when nothing is exported', async () => {
    const description = describeExecuteCode([], LIMITS);
    expect(await probeExports([])).toEqual([]);
    expect(description).toContain('No tool functions are available');
    expect(description).not.toContain('declare const tools');
    expect(description).not.toMatch(/\(args\??:/);
  });

  it('states the limits', () => {
    const description = describeExecuteCode(FILE_TOOLS, {
      timeoutMs: 30_000,
      memoryMb: 64,
      maxToolCalls: 50,
      maxOutputChars: 20_000,
    });
    expect(description).toContain('30000 ms');
    expect(description).toContain('64 MB');
    expect(description).toContain('at most 50 per run');
    expect(description).toContain('TOOL_BUDGET_EXCEEDED');
    expect(description).toContain('20000 characters');
  });
});
