/**
 * A tool with an outputSchema returns an object: dispatch validates it in the host (the tool ran
 * in a real worker) and the outcome carries it as structured content beside the text the model
 * reads. Anything else is TOOL_RESULT_INVALID with the JSON pointer of the problem.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixtureOptions } from '../helpers.js';

let host: ToolHost;

beforeAll(async () => {
  host = await createToolHost(fixtureOptions(['structured']));
});

afterAll(async () => {
  await host?.close();
});

const report = { city: 'Oslo', tempC: 21, conditions: 'sun', hourly: [{ hour: 9, tempC: 18 }], station: null };

describe('a tool with an outputSchema', () => {
  it('gives host.call its object as structured content, and its JSON as the text', async () => {
    const outcome = await host.call('weather', { city: 'Oslo' });
    expect(outcome).toEqual({
      ok: true,
      text: JSON.stringify(report),
      content: { blocks: [{ type: 'text', text: JSON.stringify(report) }], structured: report },
    });
    expect(JSON.parse(await host.dispatch('weather', { city: 'Oslo' }))).toEqual(report);
  });

  it('takes a string that is the JSON of a matching object the same way', async () => {
    const outcome = await host.call('weather_json', { city: 'Lima' });
    expect(outcome.ok && outcome.content?.structured).toEqual({ city: 'Lima', tempC: 3 });
  });

  it('refuses a result that does not match with TOOL_RESULT_INVALID and the ajv path', async () => {
    expect(JSON.parse(await host.dispatch('weather_wrong', { city: 'Oslo' }))).toEqual({
      code: 'TOOL_RESULT_INVALID',
      error:
        "weather_wrong (plugin toolshed-plugin-structured) returned a result that does not match its outputSchema: /tempC must be number. This is a bug in toolshed-plugin-structured, not in the call: report it to the plugin's author.",
    });
  });

  it('refuses text that is not JSON, and JSON that is not an object', async () => {
    const text = JSON.parse(await host.dispatch('weather_text', { city: 'Oslo' }));
    expect(text.code).toBe('TOOL_RESULT_INVALID');
    expect(text.error).toContain('returned text that is not JSON, but it declares an outputSchema');
    const list = JSON.parse(await host.dispatch('weather_list', { city: 'Oslo' }));
    expect(list.code).toBe('TOOL_RESULT_INVALID');
    expect(list.error).toContain('returned an array, but it declares an outputSchema');
  });

  it('refuses a matching object over its result cap: a cut object matches no schema', async () => {
    const outcome = JSON.parse(await host.dispatch('weather_huge', { city: 'Oslo' }));
    expect(outcome.code).toBe('TOOL_RESULT_INVALID');
    expect(outcome.error).toContain('over the limit of 200 (maxResultChars)');
  });

  it('leaves tools without one as they were: text only', async () => {
    expect(await host.call('levels', {})).toEqual({ ok: true, text: 'logged' });
  });
});

describe('an outputSchema written with zod', () => {
  it('is converted from its output type and validates the result', async () => {
    const zodHost = await createToolHost(fixtureOptions(['zod-output']));
    try {
      const tool = (await zodHost.definitions({ format: 'mcp' })).find((t) => t.name === 'stay')!;
      // `nights` has a default: optional as input, always there in the output.
      expect(tool.outputSchema).toMatchObject({ type: 'object', required: ['city', 'nights'] });
      expect((await zodHost.call('stay', { city: 'Rome' })).content?.structured).toEqual({ city: 'Rome', nights: 2 });
      const bad = JSON.parse(await zodHost.dispatch('stay', { city: 'Rome', bad: true }));
      expect(bad.code).toBe('TOOL_RESULT_INVALID');
      expect(bad.error).toContain('its outputSchema: /nights is required.');
    } finally {
      await zodHost.close();
    }
  });
});
