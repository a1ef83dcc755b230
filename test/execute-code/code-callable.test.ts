/**
 * `ToolSpec.codeCallable` makes a tool callable from execute_code's code; its old name `sandbox`
 * is a deprecated alias that still works until toolshed 2. Both given with different values is
 * PLUGIN_INVALID, naming the tool and the alias's JSON pointer.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ToolHostOptions } from 'toolshed';
import { tempDir, withHost } from '../helpers.js';

const CODE_PLUGIN = fileURLToPath(new URL('../../plugins/code-execution', import.meta.url));
const work = tempDir();
afterAll(() => work.cleanup());

/** A trusted plugin `name` whose tools carry the flags given (one tool per entry). */
function writePlugin(name: string, tools: Record<string, string>): string {
  const dir = path.join(work.dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name, version: '1.0.0', type: 'module', main: 'index.js', toolshed: { apiVersion: 1 } }),
  );
  const specs = Object.entries(tools).map(
    ([tool, flags]) =>
      `{ name: '${tool}', description: 'Returns ${tool}.', parameters: { type: 'object' }, handler: () => '${tool}', ${flags} }`,
  );
  writeFileSync(path.join(dir, 'index.js'), `export default { apiVersion: 1, tools: [${specs.join(', ')}] };`);
  return dir;
}

const options = (plugin: string): ToolHostOptions => ({
  cwd: work.dir,
  env: { PATH: process.env.PATH },
  config: {
    builtins: false,
    plugins: [
      { package: CODE_PLUGIN, trust: 'trusted' },
      { package: plugin, trust: 'trusted' },
    ],
  },
});

const declared = async (host: { definitions(o: { format: 'mcp' }): Promise<unknown[]> }) => {
  const text =
    ((await host.definitions({ format: 'mcp' })) as Array<{ name: string; description: string }>).find(
      (d) => d.name === 'execute_code',
    )?.description ?? '';
  return [...text.matchAll(/^ {2}(?:\/\*\*.*\*\/ )?(\w+)\(args/gm)].map((m) => m[1]);
};

describe('ToolSpec.codeCallable and its deprecated alias sandbox', () => {
  it('each makes a tool callable from code; false, or neither, does not', async () => {
    const plugin = writePlugin('flags-plugin', {
      by_new_name: 'codeCallable: true',
      by_old_name: 'sandbox: true',
      both_agree: 'codeCallable: true, sandbox: true',
      new_false: 'codeCallable: false',
      old_false: 'sandbox: false',
      neither: '',
    });
    await withHost(options(plugin), async (host) => {
      expect(await declared(host)).toEqual(['both_agree', 'by_new_name', 'by_old_name']);
      const out = JSON.parse(
        await host.dispatch('execute_code', {
          code: 'return [await tools.by_new_name({}), await tools.by_old_name({})];',
        }),
      );
      expect(out.result).toEqual(['by_new_name', 'by_old_name']);
    });
  });

  it('refuses a tool whose codeCallable and sandbox disagree, with PLUGIN_INVALID', async () => {
    const plugin = writePlugin('disagreeing-plugin', {
      fine: 'codeCallable: true',
      torn: 'codeCallable: false, sandbox: true',
    });
    await withHost(options(plugin), async (host) => {
      const report = host.explain().plugins.find((p) => p.name === 'disagreeing-plugin');
      expect(report?.status).toBe('failed');
      expect(report?.error?.code).toBe('PLUGIN_INVALID');
      expect(report?.error?.message).toContain(
        'tool torn sets codeCallable: false and its deprecated alias sandbox: true',
      );
    });
  });
});
