/** The allow-list of host RPC methods: the guard in front of the host passes these names and nothing else. */
import type { HostRpc } from './protocol.js';

/** The allow-list of `HostRpc` method names. */
export const HOST_RPC_METHODS: readonly (keyof HostRpc)[] = Object.freeze([
  'log',
  'progress',
  'callTool',
  'sandboxTools',
  'session',
]);
