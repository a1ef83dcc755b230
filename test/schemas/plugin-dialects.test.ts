/**
 * Plugin parameter schemas are validated in their own JSON Schema dialect: 2020-12 (tagged, or
 * untagged with 2020-12 keywords), draft-07 (tagged, or untagged with draft-07-only forms) and
 * 2019-09, through a real host, in both tiers: trusted (thread) and untrusted (a child process).
 * Tuples, $defs, unevaluatedProperties and dependentRequired are enforced at dispatch, and every
 * valid call reaches the handler. An unknown $schema fails the plugin with PLUGIN_INVALID.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixture, fixtureOptions, withHost } from '../helpers.js';

/** The envelope dispatch returns, parsed. */
async function envelope(
  host: ToolHost,
  tool: string,
  args: unknown,
): Promise<{ error?: string; code?: string } & Record<string, unknown>> {
  return JSON.parse(await host.dispatch(tool, JSON.stringify(args))) as { error?: string; code?: string };
}

describe.each([
  { trust: 'trusted' as const, tier: 'thread' },
  { trust: 'untrusted' as const, tier: 'process' },
])('plugin schemas in their dialects, $trust plugin ($tier tier)', ({ trust, tier }) => {
  let host: ToolHost;
  beforeAll(async () => {
    host = await createToolHost(
      fixtureOptions([], { config: { plugins: [{ package: fixture('plugins', 'dialects'), trust }] } }),
    );
  });
  afterAll(async () => {
    await host?.close();
  });

  it('loads every tool in its tier and explains the dialect each schema was read in', async () => {
    const report = await host.refresh();
    expect(report.plugins[0]).toMatchObject({ status: 'loaded', tier });
    const dialects = Object.fromEntries(report.tools.map((t) => [t.name, t.schema]));
    expect(dialects).toEqual({
      route_2020: { dialect: '2020-12', from: '$schema' },
      order_2020: { dialect: '2020-12', from: 'untagged: unevaluatedProperties at /' },
      route_07: { dialect: 'draft-07', from: '$schema' },
      order_07: { dialect: 'draft-07', from: 'untagged: dependencies at /' },
      closed_2019: { dialect: '2019-09', from: '$schema' },
    });
  });

  it('2020-12 tagged: a tuple and $defs are checked, and a valid call gets through', async () => {
    const args = { leg: ['walk', 120], from: { x: 0, y: 1 } };
    expect(await envelope(host, 'route_2020', args)).toEqual(args);
    const swapped = await envelope(host, 'route_2020', { leg: [120, 'walk'], from: { x: 0, y: 1 } });
    expect(swapped).toEqual({
      code: 'INVALID_ARGUMENTS',
      error: 'invalid arguments for route_2020: /leg/0 must be string; /leg/1 must be number',
    });
    const long = await envelope(host, 'route_2020', { leg: ['walk', 120, 'extra'], from: { x: 0, y: 1 } });
    expect(long).toEqual({
      code: 'INVALID_ARGUMENTS',
      error: 'invalid arguments for route_2020: /leg must NOT have more than 2 items',
    });
    const point = await envelope(host, 'route_2020', { leg: ['walk', 1], from: { x: 0 } });
    expect(point).toEqual({
      code: 'INVALID_ARGUMENTS',
      error: 'invalid arguments for route_2020: /from/y is required',
    });
  });

  it('2020-12 untagged: unevaluatedProperties over allOf and dependentRequired are enforced', async () => {
    const full = { item: 'tea', count: 2, card: '4242', expiry: '12/29' };
    expect(await envelope(host, 'order_2020', full)).toEqual(full);
    expect(await envelope(host, 'order_2020', { item: 'tea', coupon: 'FREE' })).toEqual({
      code: 'INVALID_ARGUMENTS',
      error: 'invalid arguments for order_2020: /coupon is not an allowed property',
    });
    expect(await envelope(host, 'order_2020', { item: 'tea', card: '4242' })).toEqual({
      code: 'INVALID_ARGUMENTS',
      error: 'invalid arguments for order_2020: /expiry is required when "card" is present',
    });
  });

  it('draft-07 tagged and untagged: an items-array tuple, additionalItems, definitions and dependencies keep their draft-07 meaning', async () => {
    expect(await envelope(host, 'route_07', { leg: ['walk', 3], from: { x: 1, y: 2 } })).toEqual({
      leg: ['walk', 3],
      from: { x: 1, y: 2 },
    });
    expect(await envelope(host, 'route_07', { leg: ['walk', 3, 4] })).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      error: 'invalid arguments for route_07: /leg must NOT have more than 2 items',
    });
    expect(await envelope(host, 'route_07', { leg: ['walk', 3], from: { x: 1 } })).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      error: 'invalid arguments for route_07: /from/y is required',
    });
    expect(await envelope(host, 'order_07', { leg: ['a', 1], card: '1', expiry: '2' })).toEqual({
      leg: ['a', 1],
      card: '1',
      expiry: '2',
    });
    expect(await envelope(host, 'order_07', { leg: [1, 'a'] })).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      error: 'invalid arguments for order_07: /leg/0 must be string; /leg/1 must be number',
    });
    expect(await envelope(host, 'order_07', { card: '1' })).toEqual({
      code: 'INVALID_ARGUMENTS',
      error: 'invalid arguments for order_07: /expiry is required when "card" is present',
    });
  });

  it('2019-09 tagged: unevaluatedProperties is enforced', async () => {
    expect(await envelope(host, 'closed_2019', { name: 'a' })).toEqual({ name: 'a' });
    expect(await envelope(host, 'closed_2019', { name: 'a', other: 1 })).toEqual({
      code: 'INVALID_ARGUMENTS',
      error: 'invalid arguments for closed_2019: /other is not an allowed property',
    });
  });

  it('explain prints the dialect in its tool detail', async () => {
    const { renderTool } = await import('#internal/core/cli/render.js');
    const report = host.explain();
    const tool = (name: string) => renderTool(report.tools.find((t) => t.name === name)!, report);
    expect(tool('route_2020')).toContain('  schema:   JSON Schema 2020-12 (its $schema)');
    expect(tool('order_07')).toContain('  schema:   JSON Schema draft-07 (untagged: dependencies at /)');
  });
});

describe('a $schema toolshed does not validate', () => {
  it('fails the plugin with PLUGIN_INVALID naming the supported dialects', async () => {
    await withHost(fixtureOptions(['unknown-dialect']), async (host) => {
      const failed = host.explain().plugins.find((p) => p.name === 'toolshed-plugin-unknown-dialect')!;
      expect(failed.status).toBe('failed');
      expect(failed.error?.code).toBe('PLUGIN_INVALID');
      expect(failed.error?.message).toBe(
        'toolshed-plugin-unknown-dialect: tool old_style: parameters: $schema "http://json-schema.org/draft-04/schema#" is not a JSON Schema dialect toolshed validates; supported: draft-06, draft-07, 2019-09 and 2020-12 (http://json-schema.org/draft-06/schema#, http://json-schema.org/draft-07/schema#, https://json-schema.org/draft/2019-09/schema, https://json-schema.org/draft/2020-12/schema), or no $schema',
      );
    });
  });
});
