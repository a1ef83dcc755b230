/** `toolshed serve`: the MCP server. */
import { UsageError } from '../errors.js';
import type { ToolHost } from '../host.js';

/** Starts the MCP server over stdio or Streamable HTTP. */
export async function runServe(_options: { values: { http?: string; watch?: boolean }; openHost(): Promise<ToolHost>; out(text: string): void }): Promise<number> {
  throw new UsageError('serve is not part of this build yet (the MCP server is tracked as its own issue)');
}
