/**
 * Messages a worker posts on its parent port. Plugin code shares that port
 * (`parentPort`), so whatever arrives there is hostile until checked: the only
 * message expected is the RPC-port handover, with a real `MessagePort`. A
 * message that fails the check is dropped and counted (explain reports the
 * count and the last reason), never used: one bad field must not throw in the
 * host (thread tier) or in the child's main thread (process tier).
 */
import { MessagePort } from 'node:worker_threads';

/** Messages dropped by a runner (or reported dropped by its child), for explain. */
export interface DroppedMessages {
  count: number;
  last?: string;
}

/** Counts one dropped message and keeps its reason. */
export function dropMessage(stats: DroppedMessages, reason: string): void {
  stats.count++;
  stats.last = reason;
}

/** The port of a well-formed RPC-port handover, or why the message is not one. */
export function rpcPortOf(message: unknown): MessagePort | string {
  if (typeof message !== 'object' || message === null)
    return `a ${message === null ? 'null' : typeof message} on the parent port instead of a message object`;
  const { type, port } = message as { type?: unknown; port?: unknown };
  if (type !== 'toolshed:rpc-port')
    return `a message of unknown type ${JSON.stringify(String(type)).slice(0, 60)} on the parent port`;
  if (!(port instanceof MessagePort))
    return `an rpc-port message whose port is ${port === null ? 'null' : typeof port}, not a MessagePort`;
  return port;
}
