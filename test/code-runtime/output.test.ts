import { describe, expect, it } from 'vitest';
import { OutputBuffer } from '#internal/sandbox/code/output.js';

function capture(lines: string[], maxChars: number): string {
  const buffer = new OutputBuffer(maxChars);
  for (const line of lines) buffer.writeLine(line);
  return buffer.toString();
}

describe('OutputBuffer', () => {
  it('joins lines with newlines while under the cap', () => {
    expect(capture(['a', 'b', ''], 100)).toBe('a\nb\n');
    expect(capture(['x'.repeat(100)], 100)).toBe('x'.repeat(100));
  });

  it('keeps the exact head and tail of the stream around the marker, within the cap', () => {
    const lines = Array.from({ length: 500 }, (_, index) => `line ${index}`);
    const stream = lines.join('\n');
    const output = capture(lines, 300);
    expect(output.length).toBeLessThanOrEqual(300);
    const match =
      /^([\s\S]*)\n\[\.\.\. (\d+) characters omitted: output is capped at 300 characters \.\.\.\]\n([\s\S]*)$/.exec(
        output,
      );
    expect(match).not.toBeNull();
    const [, head = '', omitted = '', tail = ''] = match ?? [];
    expect(stream.startsWith(head)).toBe(true);
    expect(stream.endsWith(tail)).toBe(true);
    expect(head.length + Number(omitted) + tail.length).toBe(stream.length);
    expect(Math.abs(head.length - tail.length)).toBeLessThanOrEqual(1);
  });

  it('handles a single write larger than the cap', () => {
    const output = capture(['a'.repeat(1000) + 'b'.repeat(1000)], 200);
    expect(output.length).toBeLessThanOrEqual(200);
    expect(output.startsWith('aaa')).toBe(true);
    expect(output.endsWith('bbb')).toBe(true);
  });
});
