// @ts-check
// Type declarations only: the plugin receives these shapes from the host.

/**
 * What a toolshed handler receives as its second argument.
 * @typedef {object} ToolContext
 * @property {AbortSignal} signal  aborted when the host cancels or times out the call
 * @property {Record<string, string | undefined>} env  only the env vars the operator granted
 * @property {(msg: string) => void} [log]
 * @property {(done: number, total?: number) => void} [progress]
 * @property {(name: string, args: unknown) => Promise<unknown>} [callTool]
 * @property {string} [sessionId]
 * @property {string} [cwd]  the host's working directory
 */

export {};
