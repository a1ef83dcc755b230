/**
 * An MCP server built with the SDK's McpServer and zod 4 whose tools list 2020-12 schemas (a
 * tuple, $defs, one untagged: MCP's default dialect) and one draft-07 schema: each is read in
 * its dialect, a valid tuple reaches the server, a wrong one is refused by the host with the
 * INVALID_ARGUMENTS envelope before anything is sent, and the provider formats say the truth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolHost } from 'toolshed';
import { fixture } from '../helpers.js';
import { serversHost, until } from '../mcp-servers/setup.js';

const DIALECTS = fixture('mcp-servers', 'dialects', 'server.mjs');
let host: ToolHost;

beforeAll(async () => {
  host = await serversHost({ dialects: { command: 'node', args: [DIALECTS] } });
  await until(host, (r) => r.tools.filter((t) => t.toolset === 'mcp-dialects').length === 3, 'the dialects server');
});

afterAll(async () => {
  await host?.close();
});

describe('an MCP server (McpServer, zod 4) with 2020-12 tool schemas', () => {
  it('reads each schema in its dialect: $schema, or untagged as 2020-12', () => {
    const schemas = Object.fromEntries(host.explain().tools.map((t) => [t.name, t.schema]));
    expect(schemas).toEqual({
      route_2020: { dialect: '2020-12', from: '$schema' },
      route_untagged: { dialect: '2020-12', from: 'untagged (MCP default)' },
      route_07: { dialect: 'draft-07', from: '$schema' },
    });
  });

  it('calls a tuple tool with a valid tuple', async () => {
    expect(JSON.parse(await host.dispatch('route_2020', '{"leg":["walk",120]}'))).toEqual({ leg: ['walk', 120] });
    const route = { leg: ['bus', 4000], from: { x: 0, y: 0 }, to: { x: 3, y: 4 } };
    expect(JSON.parse(await host.dispatch('route_untagged', JSON.stringify(route)))).toEqual(route);
    expect(JSON.parse(await host.dispatch('route_07', '{"leg":["walk",120]}'))).toEqual({ leg: ['walk', 120] });
  });

  it('refuses a wrong tuple with the INVALID_ARGUMENTS envelope', async () => {
    expect(JSON.parse(await host.dispatch('route_2020', '{"leg":[120,"walk"]}'))).toEqual({
      error: 'invalid arguments for route_2020: /leg/0 must be string; /leg/1 must be number',
      code: 'INVALID_ARGUMENTS',
    });
    expect(
      JSON.parse(await host.dispatch('route_untagged', '{"leg":["bus",1,2],"from":{"x":0,"y":0},"to":{"x":1}}')),
    ).toEqual({
      error: 'invalid arguments for route_untagged: /leg must NOT have more than 2 items; /to/y is required',
      code: 'INVALID_ARGUMENTS',
    });
    expect(JSON.parse(await host.dispatch('route_07', '{"leg":["walk"]}'))).toEqual({
      error: 'invalid arguments for route_07: /leg must NOT have fewer than 2 items',
      code: 'INVALID_ARGUMENTS',
    });
  });

  it('sends the tuple as a tuple where the format has them, and widened with its positions for Gemini', async () => {
    const mcp = await host.definitions({ format: 'mcp' });
    const tuple = {
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }],
      items: false,
      minItems: 2,
      maxItems: 2,
    };
    // The draft-07 schema goes out in 2020-12 too: MCP reads an untagged schema as 2020-12.
    const route07 = mcp.find((t) => t.name === 'route_07')!.inputSchema;
    expect(route07.$schema).toBeUndefined();
    expect((route07.properties as Record<string, unknown>).leg).toEqual(tuple);
    const anthropic = await host.definitions({ format: 'anthropic' });
    const untagged = anthropic.find((t) => 'input_schema' in t && t.name === 'route_untagged') as {
      input_schema: Record<string, any>;
    };
    expect(untagged.input_schema.properties.leg).toEqual(tuple);
    expect(untagged.input_schema.$defs).toBeDefined();
    const [gemini] = await host.definitions({ format: 'gemini' });
    const leg = (gemini!.functionDeclarations.find((d) => d.name === 'route_2020')!.parameters as Record<string, any>)
      .properties.leg;
    expect(leg).toEqual({
      type: 'array',
      items: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      minItems: 2,
      maxItems: 2,
      description: 'label, then meters. A list in this order (position: type): 1: string; 2: number.',
    });
    // Strict mode has no tuples: the tool goes out non-strict, its tuple intact.
    const strict = await host.definitions({ format: 'openai', strict: true });
    expect(strict.find((t) => t.function.name === 'route_2020')!.function).toMatchObject({
      strict: false,
      parameters: { properties: { leg: { prefixItems: [{ type: 'string' }, { type: 'number' }] } } },
    });
  });
});
