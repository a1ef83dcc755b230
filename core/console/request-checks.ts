/**
 * What the console asks of a request before its handler runs: an Origin that is the listener's
 * own (or one the operator allowed), the marks of a state-changing request, and a body that is
 * one JSON object under the size limit; a path segment that decodes.
 */
import type { IncomingMessage } from 'node:http';

/**
 * The header a state-changing request must carry: a cross-site page cannot send it without a preflight nobody answers.
 */
const CONSOLE_HEADER = 'x-toolshed-console';

/** Request bodies above this are refused. */
const MAX_BODY_BYTES = 1024 * 1024;

/** A request the API answers with USAGE (400). */
export class BadRequest extends Error {}

/** Why a request may not go on, or undefined: a foreign Origin, or a state change without the console's marks. */
export function refusal(
  req: Pick<IncomingMessage, 'headers' | 'method'>,
  origins: ReadonlySet<string>,
  allowed: ReadonlySet<string>,
): string | undefined {
  const origin = req.headers.origin;
  // Same-origin: the page was loaded from the Host this request names (the listener checked that Host).
  const own = [`http://${req.headers.host}`, `https://${req.headers.host}`];
  if (origin !== undefined && !own.includes(origin) && !origins.has(origin) && !allowed.has(origin))
    return (
      `Origin ${JSON.stringify(origin.slice(0, 100))} is not this console's (no cross-site requests; add an ` +
      `origin with --allow-origin)`
    );
  if (req.method !== 'POST') return undefined;
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
    return 'a state-changing request needs Content-Type: application/json';
  if (req.headers[CONSOLE_HEADER] !== '1') return 'a state-changing request needs the header X-Toolshed-Console: 1';
  return undefined;
}

/** The JSON object body of a POST. */
export async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BadRequest(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new BadRequest(`the body is not JSON: ${(error as Error).message}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BadRequest('the body must be a JSON object');
  return body as Record<string, unknown>;
}

/** A path segment, percent-decoded; a malformed one is a bad request. */
export function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequest(`malformed path segment ${JSON.stringify(segment.slice(0, 100))}`);
  }
}
