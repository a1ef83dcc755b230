/**
 * execute_code declares a tool with an outputSchema as `Promise<T>`, T its schema as a TypeScript
 * type (kept short: a huge schema renders shallower), and the script receives the object itself.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { declarationFor } from '#internal/sandbox/code/declarations.js';
import { fixture, scratchDir } from '../helpers.js';

const CODE_PLUGIN = fileURLToPath(new URL('../../plugins/code-execution', import.meta.url));
let host: ToolHost;

beforeAll(async () => {
  host = await createToolHost({
    cwd: scratchDir(),
    env: { PATH: process.env.PATH },
    config: {
      builtins: false,
      cache: { enabled: false },
      plugins: [
        { package: CODE_PLUGIN, trust: 'trusted' },
        { package: fixture('plugins', 'structured'), trust: 'trusted' },
      ],
      codeExecution: { tools: ['weather', 'levels'] },
    },
  });
});

afterAll(async () => {
  await host?.close();
});

describe('execute_code and a tool with an outputSchema', () => {
  it('declares its result type; a tool without one stays Promise<unknown>', async () => {
    const mcp = await host.definitions({ format: 'mcp' });
    const description = mcp.find((t) => t.name === 'execute_code')!.description;
    expect(description).toContain(
      'weather(args: { city: string; units?: "C" | "F" }): Promise<{ /** the city asked for */ city: string; tempC: number; conditions?: "sun" | "rain" | "snow"; hourly?: { hour: number; tempC?: number }[]; station?: string | null }>;',
    );
    expect(description).toContain('levels(args?: Record<string, unknown>): Promise<unknown>;');
  });

  it('hands the script the object itself', async () => {
    const code =
      'const r = await tools.weather({ city: "Oslo" }); return [typeof r, r.tempC, r.hourly[0].hour, r.station];';
    const out = JSON.parse(await host.dispatch('execute_code', { code }));
    expect(out).toMatchObject({ status: 'ok', result: ['object', 21, 9, null] });
  });

  it('keeps a huge result type bounded', () => {
    const wide = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 400 }, (_, i) => [
          `field_${i}`,
          { type: 'object', properties: { a: { type: 'string' } } },
        ]),
      ),
    };
    const declaration = declarationFor({
      name: 'wide',
      description: 'Wide.',
      parameters: { type: 'object' },
      outputSchema: wide,
    });
    expect(declaration).toMatch(/\): Promise<Record<string, unknown>>;$/);
    const deep = {
      type: 'object',
      properties: {
        a: {
          type: 'object',
          properties: {
            b: {
              type: 'object',
              properties: {
                c: { type: 'object', properties: { d: { type: 'string', description: 'x'.repeat(2000) } } },
              },
            },
          },
        },
      },
    };
    const shallow = declarationFor({
      name: 'deep',
      description: 'Deep.',
      parameters: { type: 'object' },
      outputSchema: deep,
    });
    expect(shallow.length).toBeLessThan(1_700);
    expect(shallow).toMatch(/\): Promise<{ a\?: { b\?: unknown } }>;$/);
  });
});
