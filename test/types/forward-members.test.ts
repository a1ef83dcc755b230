// Type tests for the hosts that stand in for another: `npm test` type-checks this file (tsc --noEmit) and runs it.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ToolHost } from 'toolshed';
import { MEMBERS } from '#internal/core/host/forward.js';

describe('the forwarding table of the stand-in hosts', () => {
  it('lists every member of ToolHost and nothing else', () => {
    expectTypeOf<keyof typeof MEMBERS>().toEqualTypeOf<keyof ToolHost>();
    expect(Object.keys(MEMBERS).length).toBe(16);
  });

  it('makes a member added to ToolHost without a forwarding a type error', () => {
    type Grown = ToolHost & { rename(name: string): void };
    // @ts-expect-error 'rename' is a member of the host that the table does not forward
    void (MEMBERS satisfies Record<keyof Grown, string>);
    type Covers<H> = typeof MEMBERS extends Record<keyof H, unknown> ? true : false;
    expectTypeOf<Covers<ToolHost>>().toEqualTypeOf<true>();
    expectTypeOf<Covers<Grown>>().toEqualTypeOf<false>();
  });
});
