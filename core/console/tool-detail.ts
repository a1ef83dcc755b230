/**
 * `GET api/tools/NAME`: one tool as the operator wants to see it: its state
 * and reason, its plugin's tier, trust and permissions, its declaration
 * (schema, examples, annotations), its description part by part (which
 * conditional parts are shown now, and on which tools they depend) and as
 * the model reads it, and its definition in every provider format.
 */
import { FORMATS, type DefinitionFormat } from '../providers/index.js';
import type { HostReport } from '../explain/public-types.js';
import type { ToolHost } from '../host/host.js';
import type { ToolInfo } from '../expose/public-types.js';
import type { DescriptionPart } from '../../boundary/plugin-api.js';
import type { MarkedPart, ToolDetail } from './api-types.js';

/** A definition's tool name, in any format (openai nests it under `function`). */
function nameOf(definition: unknown): string | undefined {
  const entry = definition as { name?: unknown; function?: { name?: unknown } };
  const name = entry.function?.name ?? entry.name;
  return typeof name === 'string' ? name : undefined;
}

/** The tool's definition in `format`, from what the host sends the model now. */
async function definitionIn(host: ToolHost, format: DefinitionFormat, name: string): Promise<object | undefined> {
  const definitions = (await host.definitions({ format })) as unknown[];
  // Gemini sends one entry holding every declaration.
  const entries =
    format === 'gemini'
      ? definitions.flatMap((d) => (d as { functionDeclarations?: unknown[] }).functionDeclarations ?? [])
      : definitions;
  return entries.find((d) => nameOf(d) === name) as object | undefined;
}

/** A description part, marked: plain, or shown only while tools are available or missing. */
function markedPart(part: DescriptionPart, exposed: ReadonlySet<string>): MarkedPart {
  if (typeof part === 'string') return { text: part, kind: 'plain' as const, shown: true };
  if ('ifAvailable' in part)
    return {
      text: part.text,
      kind: 'ifAvailable' as const,
      tools: part.ifAvailable,
      shown: part.ifAvailable.every((t) => exposed.has(t)),
    };
  return {
    text: part.text,
    kind: 'ifMissing' as const,
    tools: part.ifMissing,
    shown: part.ifMissing.some((t) => !exposed.has(t)),
  };
}

/** The answer for tool `name`, or undefined when no such tool is registered. */
export async function toolDetail(
  host: ToolHost,
  report: HostReport,
  info: ToolInfo | undefined,
  name: string,
): Promise<ToolDetail | undefined> {
  const state = report.tools.find((t) => t.name === name);
  if (!state) return undefined;
  const plugin = report.plugins.find((p) => p.name === state.plugin);
  const exposed = new Set(report.tools.filter((t) => t.exposed).map((t) => t.name));
  const definitions = state.exposed
    ? Object.fromEntries(
        await Promise.all(
          FORMATS.map(async (format) => [format, (await definitionIn(host, format, name)) ?? null] as const),
        ),
      )
    : null;
  // A deferred tool is not in the lists until a session loads it.
  const listed = definitions && Object.values(definitions).some((d) => d !== null) ? definitions : null;
  const mcp = listed?.mcp as { description?: string } | undefined;
  return {
    state,
    plugin: {
      name: state.plugin,
      ...(plugin?.tier !== undefined ? { tier: plugin.tier } : {}),
      ...(plugin?.trust !== undefined ? { trust: plugin.trust } : {}),
      ...(plugin?.permissions ? { permissions: plugin.permissions } : {}),
    },
    ...(info?.title !== undefined ? { title: info.title } : {}),
    annotations: info?.annotations ?? state.annotations ?? {},
    parameters: info?.parameters ?? {},
    ...(info?.outputSchema ? { outputSchema: info.outputSchema } : {}),
    ...(info?.examples ? { examples: info.examples } : {}),
    description: {
      parts: (info?.description ?? []).map((part) => markedPart(part, exposed)),
      resolved: state.exposed ? (mcp?.description ?? '') : '',
    },
    definitions: listed,
  };
}
