// @ts-check

/**
 * Keeps the first `headChars` and the last `tailChars` of a stream of text and
 * counts what fell in between, so a command printing gigabytes costs bounded memory.
 */
export class HeadTailBuffer {
  /** Creates a buffer that keeps `headChars` from the start and `tailChars` from the end. */
  constructor(/** @type {number} */ headChars, /** @type {number} */ tailChars) {
    this.headChars = headChars;
    this.tailChars = tailChars;
    this.head = '';
    this.tail = '';
    this.total = 0;
  }

  /** Appends a piece of output. */
  push(/** @type {string} */ text) {
    this.total += text.length;
    if (this.head.length < this.headChars) {
      const room = this.headChars - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text.length === 0) return;
    this.tail += text;
    // Trimming only when the tail doubles keeps appends amortised O(1).
    if (this.tail.length > this.tailChars * 2) this.tail = this.tail.slice(-this.tailChars);
  }

  /** Characters dropped from the middle. */
  get omitted() {
    return this.total - this.head.length - Math.min(this.tail.length, this.tailChars);
  }

  /** The kept text, with a marker where the middle was cut. */
  toString() {
    const tail = this.tail.slice(-this.tailChars);
    const omitted = this.omitted;
    if (omitted === 0) return this.head + tail;
    return `${this.head}\n\n[... ${omitted} characters omitted ...]\n\n${tail}`;
  }
}

/**
 * `result` (the terminal's answer, with its `output`) as it must be for its JSON to fit in
 * `maxChars`: as it is when it fits, else with the middle of its output cut further, marked, and a
 * note saying so. The buffer above counts characters of output, but the host's result cap counts
 * the result's JSON, in which a control character takes six (`\u001b`) and a quote or backslash
 * two: without this, output full of them went over the cap, the host cut the JSON inside the
 * output string, and the result was no longer JSON.
 * @template {{ output: string, note?: string }} R
 * @param {R} result
 * @param {number} maxChars
 * @returns {R}
 */
export function fitJson(result, maxChars) {
  if (JSON.stringify(result).length <= maxChars) return result;
  const text = result.output;
  const note =
    `${result.note ? `${result.note} ` : ''}The output took more than ${maxChars} characters as JSON (control ` +
    `characters and quotes are escaped there); its middle was cut further.`;
  /** The result with `keep` characters of the output: three eighths from its start, the rest from its end. */
  const cutTo = (/** @type {number} */ keep) => {
    const head = Math.floor((keep * 3) / 8);
    const output =
      `${text.slice(0, head)}\n\n[... ${text.length - keep} characters omitted ...]\n\n` +
      `${text.slice(text.length - (keep - head))}`;
    return { ...result, note, output };
  };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (JSON.stringify(cutTo(mid)).length <= maxChars) low = mid;
    else high = mid - 1;
  }
  return cutTo(low);
}
