// @ts-check
import { REFUSED_CODE } from './address-guard.js';

/** The User-Agent sent with every request; some sites refuse requests without one. */
export const USER_AGENT = 'Mozilla/5.0 (compatible; toolshed-web/1.0)';

/**
 * A signal that fires when the host aborts the call or after `ms`, whichever comes
 * first, plus a way to tell the two apart afterwards.
 * @param {AbortSignal | undefined} outer
 * @param {number} ms
 */
export function deadline(outer, ms) {
  const timer = AbortSignal.timeout(ms);
  const signal = outer ? AbortSignal.any([outer, timer]) : timer;
  return { signal, timedOut: () => timer.aborted && !outer?.aborted };
}

/**
 * Explains why a request failed: a timeout, a cancellation, or the network error
 * that undici hides in `cause` behind a bare "fetch failed".
 * @param {unknown} err
 * @param {string} what  e.g. "https://example.com/" or "Brave Search"
 * @param {{ timedOut: () => boolean }} limit
 * @param {number} ms
 */
export function requestError(err, what, limit, ms) {
  if (limit.timedOut()) return new Error(`${what} did not answer within ${ms / 1000} s.`, { cause: err });
  const e = /** @type {any} */ (err);
  if (e?.name === 'AbortError') return new Error(`The request to ${what} was cancelled.`, { cause: err });
  // A refused address says so itself (raised before connecting, or by the lookup under fetch).
  if (e?.code === REFUSED_CODE) return e;
  if (e?.cause?.code === REFUSED_CODE) return e.cause;
  const cause = e?.cause;
  const code = cause?.code ?? '';
  const reason =
    code === 'ENOTFOUND' || code === 'EAI_AGAIN'
      ? 'the host name could not be resolved'
      : code === 'ECONNREFUSED'
        ? 'the connection was refused'
        : code === 'ECONNRESET'
          ? 'the connection was reset'
          : String(code).startsWith('ERR_TLS') || String(code).includes('CERT')
            ? `a TLS/certificate error (${code})`
            : (cause?.message ?? e?.message ?? String(err));
  return new Error(`Could not reach ${what}: ${reason}.`, { cause: err });
}

/**
 * Reads a response body but stops, and closes the connection, once `maxBytes` have
 * arrived, so a huge or endless response costs at most `maxBytes` of memory.
 * @param {Response} response
 * @param {number} maxBytes
 * @returns {Promise<{ bytes: Buffer, truncated: boolean }>}
 */
export async function readCapped(response, maxBytes) {
  if (!response.body) return { bytes: Buffer.alloc(0), truncated: false };
  const reader = response.body.getReader();
  /** @type {Buffer[]} */
  const chunks = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    if (value.byteLength > room) {
      chunks.push(Buffer.from(value.buffer, value.byteOffset, room));
      size += room;
      truncated = true;
      await reader.cancel().catch(() => {});
      break;
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    size += value.byteLength;
  }
  return { bytes: Buffer.concat(chunks, size), truncated };
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(/** @type {string} */ contentType) {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** The charset parameter of a Content-Type header, if any. */
export function charsetOf(/** @type {string} */ contentType) {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return m?.[1];
}

/** Decodes bytes with the given charset label, falling back to UTF-8 for unknown labels. */
export function decode(/** @type {Buffer} */ bytes, /** @type {string | undefined} */ charset) {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}
