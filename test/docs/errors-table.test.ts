/**
 * docs/errors.md is the contract for every code a user can meet: each code
 * in toolshed's code lists has a row there, and every row names a real code.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HOST_ERROR_CODES, SANDBOX_ERROR_CODES, TOOL_ERROR_CODES } from 'toolshed';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
/** The code in the first cell of every table row. */
const documented = [...doc.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]!);

describe('docs/errors.md', () => {
  it('has one row for every code toolshed emits, and no row for a code it does not', () => {
    const codes = [...HOST_ERROR_CODES, ...TOOL_ERROR_CODES, ...SANDBOX_ERROR_CODES];
    expect([...documented].sort()).toEqual([...new Set(codes)].sort());
  });

  it('documents each code once', () => {
    expect(new Set(documented).size).toBe(documented.length);
  });
});
