/**
 * The MCP server for embedding (`toolshed/mcp`): kept out of the main entry so hosts that do not serve MCP never load
 * the SDK.
 */
export { createMcpServer } from './server.js';
export { serveStdio, type McpEndpoint } from './stdio.js';
export { serveHttp, MCP_PATH, type HttpServeOptions, type HttpEndpoint } from './http.js';
