/** Where a plugin's code runs: a trusted Piscina pool, an untrusted child process, or a remote MCP server. */
export type Tier = 'thread' | 'process' | 'remote';
