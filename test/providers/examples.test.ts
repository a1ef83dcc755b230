/**
 * A tool's examples reach the model in each format: Anthropic's own `input_examples` field, the
 * description for openai, responses and gemini (which have none), within EXAMPLES_MAX_CHARS,
 * dropped whole past it; mcp keeps the description as declared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { describedWithExamples, EXAMPLES_MAX_CHARS } from '#internal/core/providers/examples.js';
import { fixtureOptions } from '../helpers.js';

let host: ToolHost;

beforeAll(async () => {
  host = await createToolHost(fixtureOptions(['structured']));
});

afterAll(async () => {
  await host?.close();
});

const FOLDED = 'The weather in a city.\n\nExamples of valid arguments:\n{"city":"Oslo"}\n{"city":"Lima","units":"F"}';

describe('examples in the provider formats', () => {
  it('anthropic sends input_examples and keeps the description', async () => {
    const tools = await host.definitions({ format: 'anthropic' });
    const weather = tools.find((t) => 'name' in t && t.name === 'weather')!;
    expect(weather).toMatchObject({
      description: 'The weather in a city.',
      input_examples: [{ city: 'Oslo' }, { city: 'Lima', units: 'F' }],
    });
    expect(tools.find((t) => 'name' in t && t.name === 'levels')).not.toHaveProperty('input_examples');
  });

  it('openai, responses and gemini get them in the description', async () => {
    const openai = await host.definitions({ format: 'openai' });
    expect(openai.find((t) => t.function.name === 'weather')!.function.description).toBe(FOLDED);
    const strict = await host.definitions({ format: 'openai', strict: true });
    expect(strict.find((t) => t.function.name === 'weather')!.function.description).toBe(FOLDED);
    const responses = await host.definitions({ format: 'responses' });
    expect(responses.find((t) => t.name === 'weather')!.description).toBe(FOLDED);
    const gemini = await host.definitions({ format: 'gemini' });
    expect(gemini[0]!.functionDeclarations.find((d) => d.name === 'weather')!.description).toBe(FOLDED);
  });

  it('mcp keeps the declared description', async () => {
    const mcp = await host.definitions({ format: 'mcp' });
    expect(mcp.find((t) => t.name === 'weather')!.description).toBe('The weather in a city.');
  });

  it('folds at most EXAMPLES_MAX_CHARS, leaving out whole examples that do not fit', () => {
    const examples = Array.from({ length: 20 }, (_, i) => ({ query: `${'x'.repeat(90)}${i}` }));
    const text = describedWithExamples({ name: 't', description: 'Search.', parameters: { type: 'object' }, examples });
    expect(text.length - 'Search.'.length).toBeLessThanOrEqual(EXAMPLES_MAX_CHARS);
    const lines = text.split('\n').slice(3);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThan(examples.length);
    for (const [i, line] of lines.entries()) expect(JSON.parse(line)).toEqual(examples[i]);
  });
});
