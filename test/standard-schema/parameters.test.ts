/**
 * Standard Schema objects as a tool's parameters, with real fixture plugins written with zod 4
 * and valibot, in both tiers: the model is sent a proper JSON Schema (converted in the plugin's
 * tier), a bad argument is refused (by the host's ajv, or by the schema itself in the tier),
 * the handler receives the library's output (defaults, transforms), a schema object nothing can
 * convert fails the plugin with PLUGIN_INVALID, and a cached manifest works like a fresh one.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolHost, ToolHostOptions } from 'toolshed';
import { fixture, tempDir, withHost } from '../helpers.js';
import { createToolHost } from 'toolshed';

const ZOD = fixture('plugins', 'zod-tools');
const VALIBOT = fixture('plugins', 'valibot-tools');
const OPAQUE = fixture('plugins', 'opaque-schema');

type Trust = 'trusted' | 'untrusted';

const options = (
  trust: Trust,
  packages: string[],
  cache: Record<string, unknown> = { enabled: false },
): ToolHostOptions => ({
  env: { PATH: process.env.PATH },
  config: { builtins: false, cache, plugins: packages.map((pkg) => ({ package: pkg, trust })) },
});

/** A call's outcome with a successful result parsed. */
async function call(host: ToolHost, name: string, args: unknown) {
  const outcome = await host.call(name, args);
  return outcome.ok ? { ok: true as const, value: JSON.parse(outcome.text) } : outcome;
}

describe.each<Trust>(['trusted', 'untrusted'])('Standard Schema parameters, %s', (trust) => {
  let host: ToolHost;
  beforeAll(async () => {
    host = await createToolHost(options(trust, [ZOD, VALIBOT]));
  });
  afterAll(() => host?.close());

  it('loads both plugins and sends the model a JSON Schema, not the library object', async () => {
    const failed = host.explain().plugins.filter((p) => p.status !== 'loaded');
    expect(failed.map((p) => `${p.name}: ${p.error?.code} ${p.error?.message}`)).toEqual([]);
    const tools = await host.definitions({ format: 'mcp' });
    const trip = tools.find((t) => t.name === 'book_trip')!;
    expect(trip.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 1, description: 'Where to' },
        nights: { type: 'integer', default: 1 },
        tag: { type: 'string' },
      },
      required: ['city'],
      additionalProperties: false,
    });
    const notes = tools.find((t) => t.name === 'search_notes')!;
    expect(notes.inputSchema).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string', minLength: 2 }, limit: { type: 'integer', default: 5 } },
      required: ['query'],
    });
    for (const tool of [trip, notes])
      expect(JSON.stringify(tool.inputSchema)).not.toMatch(/~standard|"def"|"_zod"|"kind"/);
    // The OpenAI format is the same schema, for what the other providers are built from.
    const openai = await host.definitions();
    expect(JSON.stringify(openai)).not.toMatch(/~standard|"_zod"/);
  });

  it("hands the handler the schema's output: zod defaults and transforms applied", async () => {
    expect(await call(host, 'book_trip', { city: 'Oslo', tag: 'ski' })).toEqual({
      ok: true,
      value: {
        args: { city: 'Oslo', nights: 1, tag: 'SKI' },
        types: { city: 'string', nights: 'number', tag: 'string' },
      },
    });
    expect(await call(host, 'search_notes', { query: 'ab' })).toEqual({
      ok: true,
      value: { args: { query: 'ab', limit: 5 } },
    });
  });

  it('refuses a bad argument on the host, as for any JSON Schema tool', async () => {
    const wrongType = await host.call('book_trip', { city: 5 });
    expect(wrongType).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
    expect(wrongType.ok ? '' : wrongType.message).toContain('/city');
    expect(await host.call('book_trip', { city: 'Oslo', extra: true })).toMatchObject({
      ok: false,
      code: 'INVALID_ARGUMENTS',
    });
    expect(await host.call('search_notes', { query: 'a' })).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
  });

  it('refuses in the tier what only the schema itself checks (zod refinements, synchronous or not), as INVALID_ARGUMENTS', async () => {
    const outcome = await host.call('book_trip', { city: 'Atlantis' });
    expect(outcome).toEqual({
      ok: false,
      code: 'INVALID_ARGUMENTS',
      message: 'invalid arguments for book_trip: /city no such city',
    });
    // An asynchronous check, inside the call's deadline.
    expect(await host.call('reserve_name', { name: 'taken' })).toEqual({
      ok: false,
      code: 'INVALID_ARGUMENTS',
      message: 'invalid arguments for reserve_name: /name already taken',
    });
    expect(await host.call('reserve_name', { name: 'Ada' })).toEqual({ ok: true, text: 'reserved Ada' });
    // The envelope the model sees.
    expect(JSON.parse(await host.dispatch('book_trip', { city: 'Atlantis' }))).toEqual({
      error: 'invalid arguments for book_trip: /city no such city',
      code: 'INVALID_ARGUMENTS',
    });
  });

  it('fails a plugin whose schema object cannot be converted, saying what to pass instead', async () => {
    await withHost(options(trust, [OPAQUE]), async (opaque) => {
      const plugin = opaque.explain().plugins[0]!;
      expect(plugin).toMatchObject({ status: 'failed', error: { code: 'PLUGIN_INVALID' } });
      expect(plugin.error?.message).toContain(
        'tools[0].parameters is an acme schema that could not be converted to JSON Schema',
      );
      expect(plugin.error?.message).toContain('pass a JSON Schema object as parameters');
      expect(await opaque.definitions()).toEqual([]);
    });
  });
});

describe('a cached manifest with converted schemas', () => {
  it('is read from the cache at the next start, and the schema still runs in the tier', async () => {
    const cacheHome = tempDir('toolshed-stdschema-cache-');
    try {
      const start = () =>
        withHost(options('trusted', [ZOD], { dir: cacheHome.dir }), async (host) => ({
          from: host.explain().plugins[0]?.manifestSource,
          schema: (await host.definitions({ format: 'mcp' }))[0]?.inputSchema,
          defaults: await call(host, 'book_trip', { city: 'Oslo' }),
          refined: await host.call('book_trip', { city: 'Atlantis' }),
        }));
      const first = await start();
      const second = await start();
      expect(first.from).toBe('extracted');
      expect(second.from).toBe('cache');
      expect(second.schema).toEqual(first.schema);
      expect(second.schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' });
      for (const run of [first, second]) {
        expect(run.defaults).toMatchObject({ ok: true, value: { args: { city: 'Oslo', nights: 1 } } });
        expect(run.refined).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
      }
    } finally {
      cacheHome.cleanup();
    }
  });
});

describe('a cached manifest whose schema library changed', () => {
  /**
   * A plugin whose schema comes from its dependency `acme-schema` (Standard JSON Schema), which says its version in the
   * schema.
   */
  function writePlugin(dir: string): void {
    const library = path.join(dir, 'node_modules', 'acme-schema');
    mkdirSync(library, { recursive: true });
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({
        name: 'toolshed-plugin-acme',
        version: '1.0.0',
        type: 'module',
        main: 'index.js',
        toolshed: { apiVersion: 1 },
        dependencies: { 'acme-schema': '^1.0.0' },
      }),
    );
    writeFileSync(
      path.join(dir, 'index.js'),
      "import { schema } from 'acme-schema';\nexport default { apiVersion: 1, tools: [{ name: 'acme', description: 'Acme.', parameters: schema, handler: (args) => args }] };\n",
    );
    writeLibrary(library, '1.0.0');
  }

  function writeLibrary(library: string, version: string): void {
    writeFileSync(
      path.join(library, 'package.json'),
      JSON.stringify({ name: 'acme-schema', version, type: 'module', main: 'index.js' }),
    );
    writeFileSync(
      path.join(library, 'index.js'),
      `export const schema = { '~standard': { version: 1, vendor: 'acme-schema', validate: (value) => ({ value }),\n` +
        `  jsonSchema: { input: () => ({ type: 'object', description: 'converted by ${version}' }), output: () => ({}) } } };\n`,
    );
  }

  // Untrusted: its cache key covers the plugin's own files, not its node_modules (a trusted plugin's
  // pins cover the dependencies inside its folder, but not one hoisted beside it, as zod usually is).
  it('is extracted again, though the cache key covers none of the library: its version is checked', async () => {
    const work = tempDir('toolshed-stdschema-upgrade-');
    const cacheHome = tempDir('toolshed-stdschema-upgrade-cache-');
    try {
      writePlugin(work.dir);
      const start = () =>
        withHost(options('untrusted', [work.dir], { dir: cacheHome.dir }), async (host) => ({
          from: host.explain().plugins[0]?.manifestSource,
          description: (
            (await host.definitions({ format: 'mcp' }))[0]?.inputSchema as { description?: string } | undefined
          )?.description,
        }));
      expect(await start()).toEqual({ from: 'extracted', description: 'converted by 1.0.0' });
      expect(await start()).toEqual({ from: 'cache', description: 'converted by 1.0.0' });
      writeLibrary(path.join(work.dir, 'node_modules', 'acme-schema'), '1.1.0');
      expect(await start()).toEqual({ from: 'extracted', description: 'converted by 1.1.0' });
      expect(await start()).toEqual({ from: 'cache', description: 'converted by 1.1.0' });
    } finally {
      work.cleanup();
      cacheHome.cleanup();
    }
  });
});

describe('a zod or valibot schema whose converter the plugin cannot resolve', () => {
  // A folder outside the repository, so that neither zod nor @valibot/to-json-schema resolves from
  // it; the schema objects only claim their vendor (a zod 3 schema, or a valibot one without the
  // converter installed, looks like this to toolshed: no ~standard.jsonSchema).
  const work = tempDir('toolshed-stdschema-noconverter-');
  afterAll(() => work.cleanup());

  function writePlugin(vendor: string): string {
    const dir = path.join(work.dir, vendor);
    mkdirSync(dir);
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({
        name: `toolshed-plugin-fake-${vendor}`,
        version: '1.0.0',
        type: 'module',
        main: 'index.js',
        toolshed: { apiVersion: 1 },
      }),
    );
    writeFileSync(
      path.join(dir, 'index.js'),
      `const schema = { '~standard': { version: 1, vendor: '${vendor}', validate: (value) => ({ value }) } };\n` +
        `export default { apiVersion: 1, tools: [{ name: 'fake', description: 'Fake.', parameters: schema, handler: () => 'never called' }] };\n`,
    );
    return dir;
  }

  it.each([
    ['valibot', 'Install @valibot/to-json-schema as a dependency of the plugin'],
    [
      'zod',
      'Use zod 4 (from version 4.2 its schemas convert themselves), installed as a dependency of the plugin, or pass a JSON Schema object: parameters: z.toJSONSchema(schema)',
    ],
  ])('%s: PLUGIN_INVALID, saying how to install the converter or what to pass instead', async (vendor, advice) => {
    const dir = writePlugin(vendor);
    for (const trust of ['trusted', 'untrusted'] as const) {
      await withHost(options(trust, [dir]), async (host) => {
        const plugin = host.explain().plugins[0]!;
        expect(plugin, trust).toMatchObject({ status: 'failed', error: { code: 'PLUGIN_INVALID' } });
        expect(plugin.error?.message).toContain(
          `tools[0].parameters is a ${vendor} schema that could not be converted to JSON Schema (`,
        );
        expect(plugin.error?.message).toContain(advice);
        expect(plugin.error?.message).not.toContain('Require stack');
      });
    }
  });
});
