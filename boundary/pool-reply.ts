/**
 * The thread tier's smallest reply: a handler's whole text goes back as a bare string when that is
 * all its reply says (see PoolReply in protocol.ts). The worker packs, the host unpacks.
 */
import type { NormalizedResult, PoolReply, WorkerReply } from './protocol.js';

/** The Piscina entry's answer for a handler task's reply. */
export function poolReply(reply: WorkerReply<NormalizedResult>): PoolReply {
  if (!reply.ok) return reply;
  const { text, originalLength, content, isError } = reply.value;
  return originalLength === text.length && content === undefined && isError === undefined ? text : reply;
}

/** The reply a `PoolReply` stands for. */
export function workerReply<T>(reply: PoolReply): WorkerReply<T> {
  return (
    typeof reply === 'string' ? { ok: true, value: { text: reply, originalLength: reply.length } } : reply
  ) as WorkerReply<T>;
}
