/** MCP `tools/list` entries. */
import type { McpTool, ToolDefinition } from './types.js';

/** `{ name, description, inputSchema, annotations? }` per tool: MCP is the format that carries tool annotations. */
export function toMcp(defs: readonly ToolDefinition[]): McpTool[] {
  return defs.map((d) => {
    const tool: McpTool = { name: d.name, description: d.description, inputSchema: { type: 'object' as const, ...d.parameters } };
    if (d.annotations) tool.annotations = d.annotations;
    return tool;
  });
}
