/**
 * Every tool's `parameters` read in its JSON Schema dialect (its `$schema`, or the untagged
 * rule of core/schema/schema-dialect.ts) and compiled when its manifest is extracted, so a schema
 * mistake (`type: "strng"`, a `$ref` that resolves nowhere, a `$schema` toolshed does not
 * validate) makes the plugin PLUGIN_INVALID at load, with the JSON pointer into the plugin
 * object, instead of failing the first call. A cached manifest was checked when it was
 * extracted (its MAC says it is that one); what carries trust in it is validated again when
 * it is read, its parameter schemas are compiled on first use.
 */
import { PluginError } from '../../boundary/errors.js';
import { compile, createAjv, forAjv, problems } from '../schema/schema.js';
import { readDialect, UnknownDialectError, type DialectReading, type SchemaDialect } from '../schema/schema-dialect.js';
import type { Ajv } from 'ajv';
import type { ToolManifest } from './types.js';

const metaCheckers = new Map<SchemaDialect, Ajv>();

/**
 * The dialect a plugin tool's parameters are read in; an unknown `$schema` is PLUGIN_INVALID naming the supported ones.
 */
export function parameterDialect(plugin: string, tool: string, index: number, parameters: object): DialectReading {
  try {
    return readDialect(parameters, 'plugin');
  } catch (error) {
    if (!(error instanceof UnknownDialectError)) throw error;
    const pointer = `/tools/${index}/parameters/$schema`;
    throw new PluginError(
      'PLUGIN_INVALID',
      `${plugin}: tool ${tool}: parameters: ${error.message}`,
      { plugin, tool, pointer, expected: 'a supported $schema' },
      { cause: error },
    );
  }
}

/** Throws PLUGIN_INVALID naming the first tool whose parameters are not a usable JSON Schema of its dialect. */
export function checkParameterSchemas(plugin: string, tools: readonly ToolManifest[]): void {
  for (const [index, tool] of tools.entries()) {
    const at = `/tools/${index}/parameters`;
    const { dialect } = tool.dialect ?? parameterDialect(plugin, tool.name, index, tool.parameters);
    let metaChecker = metaCheckers.get(dialect);
    if (!metaChecker) metaCheckers.set(dialect, (metaChecker = createAjv({ dialect })));
    if (!(metaChecker.validateSchema(forAjv(tool.parameters, dialect)) as boolean)) {
      const first = problems(metaChecker.errors)[0];
      const pointer = `${at}${first && first.pointer !== '/' ? first.pointer : ''}`;
      const expected = first?.message ?? 'must be a valid JSON Schema';
      throw new PluginError(
        'PLUGIN_INVALID',
        `${plugin}: tool ${tool.name}: parameters is not a valid JSON Schema: ${pointer}: ${expected}`,
        { plugin, tool: tool.name, pointer, expected },
      );
    }
    try {
      // The same shared compile dispatch uses, so the first call reuses this validator.
      compile(tool.parameters, { allErrors: false, dialect });
    } catch (error) {
      const message = (error as Error).message;
      throw new PluginError(
        'PLUGIN_INVALID',
        `${plugin}: tool ${tool.name}: parameters cannot be compiled as JSON Schema ${dialect} (${at}): ${message}`,
        { plugin, tool: tool.name, pointer: at, expected: message },
        { cause: error },
      );
    }
  }
}
