/**
 * docs/contributing.md shows a unit test for a stage; the suite runs that test
 * (test/unit/contributing-example.test.ts). The page's code block and the file must not drift.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('docs/contributing.md', () => {
  it('shows the unit test the suite runs, as it is written', () => {
    const page = /## A unit test for a stage[\s\S]*?```ts\n([\s\S]*?)```/.exec(read('docs/contributing.md'))?.[1];
    const file = /\/\/ example:start\n([\s\S]*?)\/\/ example:end/.exec(
      read('test/unit/contributing-example.test.ts'),
    )?.[1];
    expect(file).toBeDefined();
    expect(page).toBe(file);
  });

  it('lists each vitest project the config defines', () => {
    const names = [...read('vitest.config.ts').matchAll(/name: '([\w-]+)'/g)].map((m) => m[1]);
    expect(names).toEqual(['unit', 'integration', 'integration-fresh', 'e2e']);
    for (const name of names) expect(read('docs/contributing.md')).toContain(`| \`${name}\` |`);
  });
});
