// @ts-check
import { createReadStream } from 'node:fs';

/**
 * One line of a file; `text` is capped and `cut` counts the characters dropped.
 * @typedef {{ text: string, cut: number }} Line
 */

/**
 * Streams a UTF-8 file line by line without ever holding more than `maxChars`
 * of one line, so a 1 GB minified file with no newline cannot exhaust memory.
 * A trailing `\r` (CRLF files) is removed; a final newline does not yield an empty line.
 * Reads from the start of `file`, an open handle the caller keeps and closes.
 * @param {import('node:fs/promises').FileHandle} file
 * @param {number} maxChars
 * @param {AbortSignal} [signal]
 * @returns {AsyncGenerator<Line>}
 */
export async function* readLines(file, maxChars, signal) {
  const stream = createReadStream('', { fd: file, start: 0, autoClose: false, encoding: 'utf8', signal });
  let text = '';
  let cut = 0;
  let pending = false;
  try {
    for await (const chunk of stream) {
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf('\n', start);
        const piece = chunk.slice(start, nl === -1 ? undefined : nl);
        const room = maxChars + 1 - text.length;
        // One character of slack lets the `\r` of a CRLF line ending survive the cap.
        if (piece.length <= room) text += piece;
        else {
          text += piece.slice(0, Math.max(0, room));
          cut += piece.length - Math.max(0, room);
        }
        pending = true;
        if (nl === -1) break;
        yield finish(text, cut, maxChars);
        text = '';
        cut = 0;
        pending = false;
        start = nl + 1;
        if (start === chunk.length) break;
      }
    }
    if (pending && (text.length > 0 || cut > 0)) yield finish(text, cut, maxChars);
  } finally {
    stream.destroy();
  }
}

/** @returns {Line} */
function finish(/** @type {string} */ text, /** @type {number} */ cut, /** @type {number} */ maxChars) {
  if (cut === 0 && text.endsWith('\r')) text = text.slice(0, -1);
  if (text.length > maxChars) {
    cut += text.length - maxChars;
    text = text.slice(0, maxChars);
  }
  return { text, cut };
}
