import { describe, expect, it } from 'vitest';
import { fitJson } from '../lib/output.js';

describe('fitJson', () => {
  it('leaves a result whose JSON fits as it is', () => {
    const result = { exitCode: 0, output: 'hello\n' };
    expect(fitJson(result, 100)).toBe(result);
  });

  it('cuts the middle of output full of control characters and quotes until the JSON fits, and says so', () => {
    // 6,000 characters of output, 30,000 or more as JSON: over a cap of 2,000 only in JSON.
    const output = `start ${'\u001b"\\'.repeat(2_000)} end`;
    const fitted = fitJson({ exitCode: 0, note: 'Earlier note.', output }, 2_000);
    const json = JSON.stringify(fitted);
    expect(json.length).toBeLessThanOrEqual(2_000);
    expect(JSON.parse(json)).toEqual(fitted);
    expect(fitted.output.startsWith('start ')).toBe(true);
    expect(fitted.output.endsWith(' end')).toBe(true);
    expect(fitted.output).toMatch(/\n\n\[\.\.\. \d+ characters omitted \.\.\.\]\n\n/);
    expect(fitted.note).toBe(
      'Earlier note. The output took more than 2000 characters as JSON (control characters and quotes are escaped there); its middle was cut further.',
    );
  });
});
