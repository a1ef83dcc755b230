/**
 * Manifest validation (ajv against manifestSchema) and normalization into
 * the shape the pipeline uses. Extraction itself happens in a worker.
 */
import { PluginError } from '../../boundary/errors.js';
// Generated at build time from manifest-schema.ts (scripts/build-config-validator.mjs): validating a
// manifest, a cached one at every start included, runs no schema compiler.
import { validate as validateManifest } from './manifest-validator.js';
import { formatProblems, problems } from '../schema/schema.js';
import { defaultToolset } from './discovery.js';
import { checkParameterSchemas, parameterDialect } from './parameter-schemas.js';
import { checkIcons, checkOutputSchemaRoot, checkToolMetadata } from './tool-metadata.js';
import type { DescriptionPart, ToolsetSpec } from '../../boundary/plugin-api.js';
import type { PluginManifest, PluginSource, ToolManifest } from './types.js';
import type { RawManifest, RawToolManifest } from '../../boundary/protocol.js';

/**
 * Validates a raw manifest and compiles its parameter schemas; throws PLUGIN_INVALID with the JSON
 * pointer(s) of what is wrong. `compileParameters: false` (a cached manifest) skips only compiling
 * the parameter schemas: they carry no trust, and compiling each costs milliseconds at every start.
 */
export function normalizeManifest(
  raw: RawManifest,
  source: Pick<PluginSource, 'name'>,
  { compileParameters = true } = {},
): PluginManifest {
  if (!validateManifest(raw)) {
    const list = problems(validateManifest.errors).map((p) => ({
      pointer: p.pointer,
      // The worker replaces functions by their typeof; say it in the plugin author's terms.
      message: /\/(handler|checkType)$/.test(p.pointer) ? 'must be a function' : p.message,
    }));
    const first = list[0];
    throw new PluginError('PLUGIN_INVALID', `${source.name}: invalid plugin object: ${formatProblems(list)}`, {
      plugin: source.name,
      ...(first ? { pointer: first.pointer, expected: first.message } : {}),
      problems: list,
    });
  }
  const tools = (raw.tools as RawToolManifest[]).map((tool, index) => normalizeTool(tool, index, source));
  const seen = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    if (seen.has(tool.name)) {
      throw new PluginError('PLUGIN_INVALID', `${source.name}: tool ${tool.name} is defined twice in the same plugin`, {
        plugin: source.name,
        pointer: `/tools/${index}/name`,
      });
    }
    seen.add(tool.name);
  }
  if (compileParameters) {
    checkParameterSchemas(source.name, tools);
    checkToolMetadata(source.name, tools);
  }
  return {
    apiVersion: 1,
    toolsets: (raw.toolsets ?? {}) as Record<string, ToolsetSpec>,
    permissions: (raw.permissions ?? {}) as PluginManifest['permissions'],
    tools,
  };
}

/**
 * `codeCallable`, or its deprecated alias `sandbox` (accepted until toolshed 2); when both are given they must agree.
 */
function codeCallable(tool: RawToolManifest, index: number, source: Pick<PluginSource, 'name'>): boolean {
  const { codeCallable: flag, sandbox: alias } = tool;
  if (flag !== undefined && alias !== undefined && flag !== alias) {
    throw new PluginError(
      'PLUGIN_INVALID',
      `${source.name}: tool ${String(tool.name)} sets codeCallable: ${String(flag)} and its deprecated alias ` +
        `sandbox: ${String(alias)}; remove sandbox`,
      {
        plugin: source.name,
        pointer: `/tools/${index}/sandbox`,
      },
    );
  }
  return (flag ?? alias) === true;
}

function normalizeTool(tool: RawToolManifest, index: number, source: Pick<PluginSource, 'name'>): ToolManifest {
  const requires = (tool.requires ?? {}) as Partial<ToolManifest['requires']>;
  const description =
    typeof tool.description === 'string' ? [tool.description] : (tool.description as DescriptionPart[]);
  const out: ToolManifest = {
    name: tool.name as string,
    toolset: (tool.toolset as string | undefined) ?? defaultToolset(source),
    description,
    parameters: tool.parameters as ToolManifest['parameters'],
    dialect: parameterDialect(source.name, tool.name as string, index, tool.parameters as object),
    requires: {
      env: requires.env ?? [],
      bins: requires.bins ?? [],
      tools: requires.tools ?? [],
      platforms: requires.platforms ?? [],
    },
    limits: (tool.limits ?? {}) as ToolManifest['limits'],
    codeCallable: codeCallable(tool, index, source),
    annotations: (tool.annotations ?? {}) as ToolManifest['annotations'],
  };
  if (tool.longRunning === true) out.longRunning = true;
  if (tool.outputSchema !== undefined)
    out.outputSchema = checkOutputSchemaRoot(
      source.name,
      out.name,
      index,
      tool.outputSchema as ToolManifest['parameters'],
    );
  if (tool.title !== undefined) out.title = tool.title as string;
  if (tool.icons !== undefined)
    out.icons = checkIcons(source.name, out.name, index, tool.icons as NonNullable<ToolManifest['icons']>);
  if (tool.examples !== undefined) out.examples = tool.examples as NonNullable<ToolManifest['examples']>;
  if (Array.isArray(tool.secrets) && tool.secrets.length) out.secrets = tool.secrets as string[];
  if (tool.checkId) out.checkId = tool.checkId;
  return out;
}
