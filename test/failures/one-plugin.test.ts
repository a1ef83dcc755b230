/**
 * A failure is one plugin's failure: real fixture packages that fail in each way,
 * asserting the code, the message, and that the rest of the host works.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost, type ToolshedConfig } from 'toolshed';
import { fixture, fixtureOptions, tempDir, withHost } from '../helpers.js';

const plugin = (name: string) => ({ package: fixture('plugins', name), trust: 'trusted' as const });

describe('a plugin that fails to load', () => {
  let work: { dir: string; cleanup(): void };
  beforeEach(() => {
    work = tempDir('toolshed-failures-');
    mkdirSync(path.join(work.dir, 'node_modules', '.cache'), { recursive: true });
    cpSync(fixture('plugins', 'greetings'), path.join(work.dir, 'greetings'), { recursive: true });
  });
  afterEach(() => work.cleanup());

  const config = (extra: Record<string, unknown> = {}) => ({
    builtins: false,
    plugins: [{ package: './greetings', trust: 'trusted' as const }, plugin('where')],
    ...extra,
  });
  const open = (extra?: Record<string, unknown>) =>
    createToolHost({ cwd: work.dir, env: {}, config: config(extra) as ToolshedConfig });
  const breakIt = () => {
    const entry = path.join(work.dir, 'greetings', 'index.js');
    writeFileSync(entry, `import 'toolshed-fixture-not-installed';\n${readFileSync(entry, 'utf8')}`);
  };

  it('keeps the toolsets and tools of its last manifest known, hidden with its own code and message', async () => {
    const first = await open();
    await first.close();
    breakIt();
    // Config naming its toolsets, in enable and in includes, still starts.
    const host = await open({ toolsets: { mine: { includes: ['greetings', 'where'] } }, enable: ['mine', 'gestures'] });
    try {
      const report = await host.refresh();
      const failed = report.plugins.find((p) => p.status === 'failed')!;
      expect(failed).toMatchObject({
        name: 'toolshed-plugin-greetings',
        error: { code: 'PLUGIN_IMPORT_FAILED' },
        known: { from: 'last-manifest', toolsets: ['greetings', 'gestures'], tools: ['hello', 'wave'] },
      });
      expect(failed.error!.message).toContain("Cannot find package 'toolshed-fixture-not-installed'");
      const hello = report.tools.find((t) => t.name === 'hello')!;
      expect(hello).toMatchObject({ exposed: false, layer: 'load', plugin: 'toolshed-plugin-greetings' });
      expect(hello.reason).toMatch(
        /^PLUGIN_IMPORT_FAILED: toolshed-plugin-greetings: .*Cannot find package 'toolshed-fixture-not-installed'/,
      );
      expect(report.toolsets.find((t) => t.name === 'greetings')).toMatchObject({
        tools: 0,
        unavailable: ['toolshed-plugin-greetings (PLUGIN_IMPORT_FAILED)'],
      });
      expect(report.warnings).toContain(
        "toolset 'gestures' is enabled, but toolshed-plugin-greetings declares it and failed to load (PLUGIN_IMPORT_FAILED); its tools are unavailable",
      );
      // A call names the failure; the rest of the host works.
      expect(JSON.parse(await host.dispatch('hello', {}))).toMatchObject({
        code: 'TOOL_NOT_EXPOSED',
        error: expect.stringContaining('PLUGIN_IMPORT_FAILED'),
      });
      expect(JSON.parse(await host.dispatch('where', {})).cwd).toBe(work.dir);
      // A name nobody ever declared is still an error.
      await expect(open({ enable: ['greetngs'] })).rejects.toMatchObject({
        code: 'TOOLSET_UNKNOWN',
        message: expect.stringContaining("Did you mean 'greetings'?"),
      });
    } finally {
      await host.close();
    }
  });

  it('with no manifest ever seen, keeps its default toolset name and only warns about other names', async () => {
    const options = fixtureOptions(['where'], {
      config: { plugins: [plugin('where'), 'toolshed-plugin-missing'], enable: ['where', 'missing', 'forecast'] },
    });
    await withHost(options, async (host) => {
      const report = await host.refresh();
      expect(report.plugins[1]).toMatchObject({
        name: 'toolshed-plugin-missing',
        error: { code: 'PLUGIN_NOT_FOUND' },
        known: { from: 'name', toolsets: ['missing'], tools: [] },
      });
      expect(report.warnings.join('\n')).toContain(
        "toolset 'forecast': no loaded plugin declares it; it may belong to toolshed-plugin-missing (PLUGIN_NOT_FOUND)",
      );
      expect(JSON.parse(await host.dispatch('where', {})).cwd).toBeTruthy();
    });
    // Without a failed plugin, the same unknown name is TOOLSET_UNKNOWN.
    await expect(
      createToolHost(fixtureOptions(['where'], { config: { enable: ['where', 'forecast'] } })),
    ).rejects.toMatchObject({ code: 'TOOLSET_UNKNOWN' });
  });

  it('a version mismatch and a load timeout leave their default toolsets known too', async () => {
    const options = {
      cwd: fixture('project'),
      env: {},
      config: {
        builtins: false,
        // The cache off: the load timeout is the extraction's.
        cache: { enabled: false },
        plugins: ['toolshed-plugin-future', plugin('hangs-at-import'), plugin('where')],
        enable: ['future', 'hangs-at-import', 'where'],
        limits: { loadTimeoutMs: 1000 },
      } as ToolshedConfig,
    };
    await withHost(options, async (host) => {
      const [future, hangs] = host.explain().plugins;
      expect(future).toMatchObject({
        error: { code: 'PLUGIN_API_MISMATCH' },
        known: { from: 'name', toolsets: ['future'] },
      });
      expect(hangs).toMatchObject({
        error: { code: 'PLUGIN_LOAD_TIMEOUT' },
        known: { from: 'name', toolsets: ['hangs-at-import'] },
      });
      expect(host.explain().warnings).toContain(
        "toolset 'future' is enabled, but toolshed-plugin-future declares it and failed to load (PLUGIN_API_MISMATCH); its tools are unavailable",
      );
      expect(JSON.parse(await host.dispatch('where', {})).cwd).toBe(fixture('project'));
    });
  });

  it('an import error names the missing package, and the other plugins load', async () => {
    await withHost(
      fixtureOptions([], {
        config: { plugins: [plugin('missingdep'), plugin('where')], enable: ['missingdep', 'where'] },
      }),
      async (host) => {
        const [failed, loaded] = host.explain().plugins;
        expect(failed).toMatchObject({
          status: 'failed',
          error: {
            code: 'PLUGIN_IMPORT_FAILED',
            message: expect.stringContaining("Cannot find package 'toolshed-fixture-not-installed'"),
          },
        });
        expect(loaded).toMatchObject({ status: 'loaded' });
        expect(JSON.parse(await host.dispatch('where', {})).cwd).toBeTruthy();
      },
    );
  });

  it('a module without a default export says which named exports it found', async () => {
    await withHost(fixtureOptions(['namedonly', 'where']), async (host) => {
      const failed = host.explain().plugins[0]!;
      expect(failed.error).toEqual({
        code: 'PLUGIN_INVALID',
        message:
          'toolshed-plugin-namedonly: no default export; found named exports: helper, plugin. Export the plugin object as the default export: export default { apiVersion: 1, tools: [...] }',
      });
      expect(JSON.parse(await host.dispatch('where', {})).cwd).toBeTruthy();
    });
  });

  it('an invalid parameter schema makes the plugin PLUGIN_INVALID at load, with the JSON pointer', async () => {
    await withHost(fixtureOptions(['badschema', 'where']), async (host) => {
      const failed = host.explain().plugins[0]!;
      expect(failed.error?.code).toBe('PLUGIN_INVALID');
      expect(failed.error?.message).toBe(
        'toolshed-plugin-badschema: tool forecast: parameters is not a valid JSON Schema: /tools/1/parameters/properties/city/type: must be one of "array", "boolean", "integer", "null", "number", "object", "string"',
      );
      expect(JSON.parse(await host.dispatch('forecast', {})).code).toBe('UNKNOWN_TOOL');
      expect(JSON.parse(await host.dispatch('where', {})).cwd).toBeTruthy();
    });
  });
});

describe('a tool that loses a name conflict', () => {
  it('keeps its implicit toolset, and the explanation names the conflict', async () => {
    const project = fixture('project');
    const options = {
      cwd: project,
      env: {},
      config: {
        builtins: false,
        plugins: ['toolshed-plugin-alpha', 'toolshed-plugin-clash'],
        enable: ['clash', 'alpha'],
      },
    };
    await withHost(options, async (host) => {
      const report = await host.refresh();
      expect(report.toolsets.find((t) => t.name === 'clash')).toMatchObject({
        tools: 0,
        definedBy: ['toolshed-plugin-clash'],
      });
      expect(report.warnings).toContain(
        "toolset 'clash' is enabled, but its tool alpha_echo from toolshed-plugin-clash lost a name conflict to toolshed-plugin-alpha (TOOL_CONFLICT)",
      );
      expect(report.tools.find((t) => t.name === 'alpha_echo')?.conflict).toMatchObject({
        winner: 'toolshed-plugin-alpha',
        losers: ['toolshed-plugin-clash'],
      });
    });
  });
});

describe('a handler that returns something that is not a result', () => {
  // One host for the five: each call fails alone, and the host keeps answering the next.
  let badresults: Promise<ToolHost> | undefined;
  afterAll(async () => {
    if (badresults) await (await badresults).close();
  });

  it.each([
    ['forgets', 'returned undefined (did the handler forget to return?)'],
    ['bytes', 'returned binary data (a Uint8Array)'],
    ['nested_buffer', 'returned binary data at key "data" (a Buffer)'],
    ['big', 'returned a BigInt at key "count"'],
    ['circular', 'returned a value JSON cannot represent (Converting circular structure to JSON'],
  ])('%s gets TOOL_RESULT_INVALID blaming the plugin and saying what to return', async (tool, what) => {
    const host = await (badresults ??= createToolHost(fixtureOptions(['badresults'])));
    const outcome = await host.call(tool, {});
    expect(outcome).toMatchObject({ ok: false, code: 'TOOL_RESULT_INVALID' });
    const message = (outcome as { message: string }).message;
    expect(message).toContain(`${tool} (plugin toolshed-plugin-badresults) ${what}`);
    expect(message).toContain('A handler must return a string, a JSON value');
    expect(message).toContain('This is a bug in toolshed-plugin-badresults');
    expect(await host.dispatch('nothing_wrong', {})).toBe('null');
  });
});
