/**
 * The MCP server for embedding (`toolshed/mcp`): kept out of the main entry so hosts that do not serve MCP never load
 * the SDK.
 */
export { createMcpServer } from './protocol/create-server.js';
export { serveStdio } from './stdio/stdio.js';
export { serveHttp, MCP_PATH } from './http/http.js';
export type { HttpServeOptions, HttpEndpoint, McpEndpoint } from './public-types.js';
