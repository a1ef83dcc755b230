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
