/**
 * Request bodies under a limit. A body over it is refused without closing the connection under a
 * client that is still sending: the rest is read and dropped as it arrives (a client whose write
 * fails on a reset may never read the refusal), and a client still sending after LINGER_MS is cut off.
 */
import type { IncomingMessage } from 'node:http';

/** A body over the reader's limit. */
export class BodyTooLarge extends Error {}

/**
 * How long a client refused for its body's size may go on sending the rest of it (read and dropped) before its
 * connection is cut.
 */
const LINGER_MS = 5_000;

/**
 * The body as JSON. Past `maxBytes` it rejects with BodyTooLarge and leaves the request
 * flowing with no reader, so the rest of the body is read and dropped as it arrives: the
 * connection is never closed under a client that is still sending (see lingerAfterRefusal).
 */
export function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      req.off('data', onData).off('end', onEnd);
      chunks.length = 0;
      reject(new BodyTooLarge(`request body over ${maxBytes} bytes`));
    };
    const onEnd = () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    };
    req.on('data', onData).on('end', onEnd).once('error', reject);
  });
}

/**
 * Lets a client refused with BodyTooLarge finish sending (readJson left the request flowing) and
 * cuts it off when it is still sending after LINGER_MS. A body that does end leaves a connection
 * that may be used again. Call it as the refusal is answered.
 */
export function lingerAfterRefusal(req: IncomingMessage): void {
  const socket = req.socket;
  const cut = setTimeout(() => socket.destroy(), LINGER_MS);
  cut.unref();
  const settle = () => clearTimeout(cut);
  req.once('end', settle);
  socket.once('close', settle);
}
