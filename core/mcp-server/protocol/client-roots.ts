/**
 * The workspace root an MCP client offers: MCP clients often start servers
 * with cwd `/`, but many can say which folders the user is working in
 * (`roots/list`). The first `file://` root is the one toolshed works in.
 */
import { fileURLToPath } from 'node:url';
import type { Server } from '@modelcontextprotocol/server';

/** The first file root the connected client lists, or undefined when it offers none (or the request fails). */
export async function clientRoot(server: Server, timeoutMs = 5_000): Promise<string | undefined> {
  if (!server.getClientCapabilities()?.roots) return undefined;
  try {
    const { roots } = await server.listRoots(undefined, { timeout: timeoutMs });
    const first = roots.find((root) => root.uri.startsWith('file://'));
    return first ? fileURLToPath(first.uri) : undefined;
  } catch {
    return undefined;
  }
}
