/**
 * Collects console output with bounded memory: the first and the last `maxChars` characters
 * are kept, so a script printing in a loop cannot grow the host's heap.
 */
export class OutputBuffer {
  private head = '';
  private tail = '';
  private total = 0;
  private lines = 0;

  constructor(private readonly maxChars: number) {}

  /** Appends one console line. */
  writeLine(text: string): void {
    this.append(this.lines === 0 ? text : `\n${text}`);
    this.lines += 1;
  }

  /** The captured text, at most `maxChars` long; a marker replaces the middle when it was cut. */
  toString(): string {
    if (this.total <= this.maxChars) return this.head;
    // Size the marker with the largest count it can show, so the real one never overshoots.
    const budget = this.maxChars - marker(this.total, this.maxChars).length;
    if (budget < 2) return this.head.slice(0, this.maxChars);
    const headLength = Math.ceil(budget / 2);
    const tailLength = budget - headLength;
    const stream = this.tail.length >= tailLength ? this.tail : this.head + this.tail;
    const omitted = this.total - headLength - tailLength;
    return this.head.slice(0, headLength) + marker(omitted, this.maxChars) + stream.slice(stream.length - tailLength);
  }

  private append(text: string): void {
    this.total += text.length;
    const room = this.maxChars - this.head.length;
    if (room > 0) {
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text.length > 0) this.tail = (this.tail + text).slice(-this.maxChars);
  }
}

function marker(omitted: number, maxChars: number): string {
  return `\n[... ${omitted} characters omitted: output is capped at ${maxChars} characters ...]\n`;
}
