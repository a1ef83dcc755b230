/**
 * The zod example of docs/plugins.md ("Schemas with zod or valibot") is the code the type checker
 * sees in snippets/book-trip.ts, and it does what the docs say: the handler's arguments come from
 * the schema's output (a default filled in).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import plugin from './snippets/book-trip.js';

const doc = readFileSync(new URL('../../docs/plugins.md', import.meta.url), 'utf8');
const copy = readFileSync(new URL('./snippets/book-trip.ts', import.meta.url), 'utf8');

/** The first ```ts block after `heading`. */
function blockAfter(text: string, heading: string): string {
  const at = text.indexOf(heading);
  expect(at, `no ${heading}`).toBeGreaterThan(-1);
  const open = text.indexOf('```ts\n', at) + 6;
  return text.slice(open, text.indexOf('\n```', open) + 1);
}

describe('docs/plugins.md, "Schemas with zod or valibot"', () => {
  it('shows the code the type checker sees', () => {
    const typed = copy.slice(
      copy.indexOf('// --- docs/plugins.md\n') + '// --- docs/plugins.md\n'.length,
      copy.indexOf('// --- end\n'),
    );
    expect(blockAfter(doc, '### Schemas with zod or valibot')).toBe(typed);
  });

  it("runs as the docs say: the handler gets the schema's output", async () => {
    const tool = plugin.tools[0];
    const result = await tool.parameters['~standard'].validate({ city: 'Oslo' });
    if (result.issues) throw new Error(JSON.stringify(result.issues));
    expect(result.value).toEqual({ city: 'Oslo', nights: 1 });
    expect(await tool.handler(result.value, {} as never)).toBe('Booked 1 night in Oslo.');
  });
});
