/** MCP `tools/list` entries: every input schema in JSON Schema 2020-12, MCP's default dialect (an untagged schema is read as 2020-12). */
import { modelParameters } from './dialect.js';
import type { McpTool, ToolDefinition } from './types.js';

/** `{ name, description, inputSchema, annotations?, execution? }` per tool: MCP is the format that carries tool annotations and task support. */
export function toMcp(defs: readonly ToolDefinition[]): McpTool[] {
  return defs.map((d) => {
    const tool: McpTool = { name: d.name, description: d.description, inputSchema: { type: 'object' as const, ...modelParameters(d) } };
    if (d.annotations) tool.annotations = d.annotations;
    if (d.longRunning) tool.execution = { taskSupport: 'optional' };
    return tool;
  });
}
