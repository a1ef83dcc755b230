/** MCP `tools/list` entries. */
import type { McpTool, ToolDefinition } from './types.js';

/** `{ name, description, inputSchema }` per tool. */
export function toMcp(defs: readonly ToolDefinition[]): McpTool[] {
  return defs.map((d) => ({ name: d.name, description: d.description, inputSchema: { type: 'object' as const, ...d.parameters } }));
}
