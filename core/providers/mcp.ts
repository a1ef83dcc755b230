/** MCP `tools/list` entries. */
import type { ToolDefinition } from './types.js';

/** `{ name, description, inputSchema }` per tool. */
export function toMcp(defs: readonly ToolDefinition[]): unknown[] {
  return defs.map((d) => ({ name: d.name, description: d.description, inputSchema: { type: 'object', ...d.parameters } }));
}
