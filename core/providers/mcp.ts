/** MCP `tools/list` entries: every input schema in JSON Schema 2020-12, MCP's default dialect (an untagged schema is read as 2020-12). */
import { modelParameters } from './dialect.js';
import type { McpTool, ToolDefinition } from './types.js';

/** `{ name, title?, description, inputSchema, outputSchema?, icons?, annotations?, _meta? }` per tool: MCP is the format that carries them. */
export function toMcp(defs: readonly ToolDefinition[]): McpTool[] {
  return defs.map((d) => {
    const tool: McpTool = { name: d.name, description: d.description, inputSchema: { type: 'object' as const, ...modelParameters(d) } };
    if (d.title !== undefined) tool.title = d.title;
    if (d.icons) tool.icons = d.icons;
    if (d.outputSchema) tool.outputSchema = d.outputSchema;
    if (d.annotations) tool.annotations = d.annotations;
    if (d.meta) tool._meta = d.meta;
    return tool;
  });
}
