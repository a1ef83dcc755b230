/**
 * MCP `tools/list` entries: every input and output schema in JSON Schema 2020-12, MCP's default
 * dialect (an untagged schema is read as 2020-12). MCP has no field for examples: they stay out
 * (the description is the tool's own, for clients that show it to a person as well).
 */
import { modelParameters, to2020 } from './dialect.js';
import type { JsonSchema } from '../../boundary/plugin-api.js';
import type { McpTool, ToolDefinition } from './types.js';

/**
 * `{ name, title?, description, inputSchema, outputSchema?, icons?, annotations?, execution?, _meta? }` per tool: MCP
 * is the format that carries a tool's metadata for clients, annotations and task support included.
 */
export function toMcp(defs: readonly ToolDefinition[]): McpTool[] {
  return defs.map((d) => {
    const tool: McpTool = {
      name: d.name,
      description: d.description,
      inputSchema: { type: 'object' as const, ...modelParameters(d) },
    };
    if (d.title !== undefined) tool.title = d.title;
    if (d.outputSchema) tool.outputSchema = to2020(d.outputSchema) as JsonSchema & { type: 'object' };
    if (d.icons) tool.icons = d.icons;
    if (d.annotations) tool.annotations = d.annotations;
    if (d.longRunning) tool.execution = { taskSupport: 'optional' };
    if (d.meta) tool._meta = d.meta;
    return tool;
  });
}
