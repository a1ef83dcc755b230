/**
 * Every tool's `parameters` compiled when its manifest is extracted, so a
 * schema mistake (`type: "strng"`, a `$ref` that resolves nowhere) makes the
 * plugin PLUGIN_INVALID at load, with the JSON pointer into the plugin
 * object, instead of failing the first call. A cached manifest was checked
 * when it was extracted (its MAC says it is that one); what carries trust in it is
 * validated again when it is read, its parameter schemas are compiled on first use.
 */
import { PluginError } from '../errors.js';
import { compile, createAjv, problems } from '../schema.js';
import type { Ajv } from 'ajv';
import type { ToolManifest } from '../types.js';

let metaChecker: Ajv | undefined;

/** Throws PLUGIN_INVALID naming the first tool whose parameters are not a usable JSON Schema. */
export function checkParameterSchemas(plugin: string, tools: readonly ToolManifest[]): void {
  for (const [index, tool] of tools.entries()) {
    const at = `/tools/${index}/parameters`;
    metaChecker ??= createAjv();
    let valid: boolean;
    try {
      valid = metaChecker.validateSchema(tool.parameters) as boolean;
    } catch (error) {
      // An unknown `$schema` dialect: the compile below reports it.
      valid = true;
    }
    if (!valid) {
      const first = problems(metaChecker.errors)[0];
      const pointer = `${at}${first && first.pointer !== '/' ? first.pointer : ''}`;
      const expected = first?.message ?? 'must be a valid JSON Schema';
      throw new PluginError('PLUGIN_INVALID', `${plugin}: tool ${tool.name}: parameters is not a valid JSON Schema: ${pointer}: ${expected}`, { plugin, tool: tool.name, pointer, expected });
    }
    try {
      // The same shared compile dispatch uses, so the first call reuses this validator.
      compile(tool.parameters, { allErrors: false });
    } catch (error) {
      const message = (error as Error).message;
      throw new PluginError('PLUGIN_INVALID', `${plugin}: tool ${tool.name}: parameters cannot be compiled (${at}): ${message}`, { plugin, tool: tool.name, pointer: at, expected: message }, { cause: error });
    }
  }
}
