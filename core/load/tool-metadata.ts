/**
 * What a tool declares besides its parameters, checked at load: its result's schema (an object at
 * the root, a usable JSON Schema), its icons (only sources a client may fetch or render safely)
 * and its examples (each a valid argument set). A mistake is PLUGIN_INVALID naming the tool and
 * the JSON pointer into the plugin object, instead of a client or a model meeting it later.
 */
import { PluginError } from '../../boundary/errors.js';
import { compile, createAjv, forAjv, problems } from '../schema/schema.js';
import { readDialect, UnknownDialectError, type SchemaDialect } from '../schema/schema-dialect.js';
import type { Ajv } from 'ajv';
import type { Icon, JsonSchema } from '../../boundary/plugin-api.js';
import type { ToolManifest } from './types.js';

/** A data: URI icon longer than this is refused: it travels in every tools/list. */
const MAX_ICON_CHARS = 64 * 1024;

/** `data:image/<subtype>[;params],…`: an inline image, nothing a client would run. */
const DATA_IMAGE = /^data:image\/[a-z0-9.+-]+(;[^,]*)?,/i;

/**
 * The schema of a tool's result, when its root says `type: "object"` (MCP's rule for structuredContent); else
 * PLUGIN_INVALID saying so.
 */
export function checkOutputSchemaRoot(plugin: string, tool: string, index: number, schema: JsonSchema): JsonSchema {
  if (schema.type !== 'object') {
    const found = schema.type === undefined ? 'no type' : `type ${JSON.stringify(schema.type)}`;
    throw new PluginError(
      'PLUGIN_INVALID',
      `${plugin}: tool ${tool}: outputSchema must have type "object" at its root (a structured result is a ` +
        `JSON object, as MCP's structuredContent is); it has ${found}. Wrap the value in an object, e.g. { type: ` +
        `"object", properties: { items: <your schema> }, required: ["items"] }`,
      { plugin, tool, pointer: `/tools/${index}/outputSchema/type`, expected: 'type "object"' },
    );
  }
  return schema;
}

/** The icons, when every `src` is an https: URL or a data:image URI; else PLUGIN_INVALID naming the icon. */
export function checkIcons(plugin: string, tool: string, index: number, icons: Icon[]): Icon[] {
  for (const [at, icon] of icons.entries()) {
    const pointer = `/tools/${index}/icons/${at}/src`;
    const refuse = (why: string) => {
      throw new PluginError('PLUGIN_INVALID', `${plugin}: tool ${tool}: icons[${at}].src ${why}`, {
        plugin,
        tool,
        pointer,
        expected: 'an https: URL or a data:image/… URI',
      });
    };
    if (icon.src.length > MAX_ICON_CHARS)
      refuse(
        `is ${icon.src.length} characters, over the limit of ${MAX_ICON_CHARS}: link the image with an https: ` +
          `URL instead`,
      );
    if (DATA_IMAGE.test(icon.src)) continue;
    let url: URL | undefined;
    try {
      url = new URL(icon.src);
    } catch {
      refuse(`is not a URL: use an https: URL or a data:image/… URI (a relative path means nothing to a client)`);
    }
    if (url!.protocol !== 'https:')
      refuse(`uses ${url!.protocol}, which clients may not fetch safely: use an https: URL or a data:image/… URI`);
  }
  return icons;
}

const metaCheckers = new Map<SchemaDialect, Ajv>();

/**
 * The dialect a tool's outputSchema is read in (its `$schema`, or the plugin rule); an unknown one is PLUGIN_INVALID.
 */
function outputDialect(plugin: string, tool: string, index: number, schema: JsonSchema): SchemaDialect {
  try {
    return readDialect(schema, 'plugin').dialect;
  } catch (error) {
    if (!(error instanceof UnknownDialectError)) throw error;
    throw new PluginError(
      'PLUGIN_INVALID',
      `${plugin}: tool ${tool}: outputSchema: ${error.message}`,
      { plugin, tool, pointer: `/tools/${index}/outputSchema/$schema`, expected: 'a supported $schema' },
      { cause: error },
    );
  }
}

/**
 * Compiles each tool's outputSchema (the compile dispatch reuses) and checks each example against
 * its parameters; throws PLUGIN_INVALID naming the tool, the example's index and what is wrong.
 */
export function checkToolMetadata(plugin: string, tools: readonly ToolManifest[]): void {
  for (const [index, tool] of tools.entries()) {
    if (tool.outputSchema) checkOutputSchema(plugin, tool, index, tool.outputSchema);
    if (!tool.examples?.length) continue;
    const validate = compile(tool.parameters, { allErrors: false, dialect: tool.dialect?.dialect });
    for (const [at, example] of tool.examples.entries()) {
      if (validate(example)) continue;
      const first = problems(validate.errors)[0];
      const where = first ? `${first.pointer || '/'} ${first.message}` : 'does not match';
      throw new PluginError(
        'PLUGIN_INVALID',
        `${plugin}: tool ${tool.name}: examples[${at}] does not match the tool's parameters: ${where}`,
        {
          plugin,
          tool: tool.name,
          pointer: `/tools/${index}/examples/${at}${first && first.pointer !== '/' ? first.pointer : ''}`,
          expected: first?.message ?? 'an argument set valid against parameters',
        },
      );
    }
  }
}

function checkOutputSchema(plugin: string, tool: ToolManifest, index: number, schema: JsonSchema): void {
  const at = `/tools/${index}/outputSchema`;
  const dialect = outputDialect(plugin, tool.name, index, schema);
  let metaChecker = metaCheckers.get(dialect);
  if (!metaChecker) metaCheckers.set(dialect, (metaChecker = createAjv({ dialect })));
  if (!(metaChecker.validateSchema(forAjv(schema, dialect)) as boolean)) {
    const first = problems(metaChecker.errors)[0];
    const pointer = `${at}${first && first.pointer !== '/' ? first.pointer : ''}`;
    const expected = first?.message ?? 'must be a valid JSON Schema';
    throw new PluginError(
      'PLUGIN_INVALID',
      `${plugin}: tool ${tool.name}: outputSchema is not a valid JSON Schema: ${pointer}: ${expected}`,
      { plugin, tool: tool.name, pointer, expected },
    );
  }
  try {
    compile(schema, { allErrors: false, dialect });
  } catch (error) {
    const message = (error as Error).message;
    throw new PluginError(
      'PLUGIN_INVALID',
      `${plugin}: tool ${tool.name}: outputSchema cannot be compiled as JSON Schema ${dialect} (${at}): ${message}`,
      { plugin, tool: tool.name, pointer: at, expected: message },
      { cause: error },
    );
  }
}
