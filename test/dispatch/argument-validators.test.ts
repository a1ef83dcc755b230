/**
 * The call stage keeps each tool's compiled validators itself: a registry
 * record is read-only data, and validating a call writes nothing on it.
 */
import { describe, expect, it } from 'vitest';
import { validateArguments } from '#internal/core/call/arguments.js';

/** A tool as the registry holds it, frozen deep enough that any write onto it throws (ESM code is strict). */
function frozenTool() {
  const parameters = {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  };
  return Object.freeze({ name: 'weather', manifest: Object.freeze({ parameters, limits: {} }) });
}

describe('argument validation', () => {
  it('validates a frozen record, valid and invalid calls alike, and leaves it as it was', () => {
    const tool = frozenTool();
    const keys = Object.keys(tool);
    expect(validateArguments(tool, { city: 'Oslo' })).toBeUndefined();
    expect(validateArguments(tool, { city: 'Oslo' })).toBeUndefined();
    const invalid = validateArguments(tool, { town: 'Oslo' });
    expect(invalid).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
    expect(invalid && !invalid.ok && invalid.message).toBe(
      'invalid arguments for weather: /city is required; /town is not an allowed property',
    );
    expect(Object.keys(tool)).toEqual(keys);
  });
});
