/**
 * A surface's `definitions()` on the stage (core/host/formatted-definitions.ts): memoized per
 * format (and strict) while the exposure's lists stay the same, a session's own additions
 * formatted per call, Anthropic's native deferral, and USAGE for an unknown format before any
 * exposure is computed. Through hosts: test/definitions/, test/tool-search/.
 */
import { describe, expect, it, vi } from 'vitest';
import { FormattedDefinitions } from '#internal/core/host/formatted-definitions.js';
import type { Exposure } from '#internal/core/expose/exposure.js';
import type { ToolDefinition } from '#internal/core/providers/types.js';

const tool = (name: string): ToolDefinition => ({
  name,
  description: `${name} things`,
  parameters: { type: 'object', properties: {} },
});

/** An exposure with only the lists `definitions()` reads. */
function exposureOf(shown: ToolDefinition[], deferred: string[] = [], all = shown): Exposure {
  return { shown, definitions: all, deferred: new Set(deferred) } as unknown as Exposure;
}

const SEARCH = { native: false } as never;

describe("a surface's formatted definitions", () => {
  it('hands back the same array while the lists stay the same, and a new one when they change', async () => {
    const exposure = exposureOf([tool('a'), tool('b')]);
    const formatted = new FormattedDefinitions(SEARCH, async (e) => e.shown);
    const first = await formatted.of(async () => exposure, {});
    expect(first.map((t) => t.function.name)).toEqual(['a', 'b']);
    expect(await formatted.of(async () => exposure, { format: 'openai' })).toBe(first);
    expect(await formatted.of(async () => exposure, { strict: true })).not.toBe(first);
    const changed = exposureOf([tool('a')]);
    expect(await formatted.of(async () => changed, {})).not.toBe(first);
  });

  it("formats a session's own list on every call", async () => {
    const exposure = exposureOf([tool('a')]);
    const formatted = new FormattedDefinitions(SEARCH, async (e, sessionId) =>
      sessionId ? [...e.shown, tool('loaded')] : e.shown,
    );
    const once = await formatted.of(async () => exposure, { sessionId: 's', format: 'anthropic' });
    expect(once.map((t) => t.name)).toEqual(['a', 'loaded']);
    expect(await formatted.of(async () => exposure, { sessionId: 's', format: 'anthropic' })).not.toBe(once);
  });

  it('sends Anthropic every tool with the deferred ones marked, when search is native and tools are deferred', async () => {
    const exposure = exposureOf([tool('a')], ['b'], [tool('a'), tool('b')]);
    const forSession = vi.fn(async (e: Exposure) => e.shown);
    const formatted = new FormattedDefinitions({ native: 'bm25' } as never, forSession);
    const tools = await formatted.of(async () => exposure, { format: 'anthropic' });
    expect(tools.map((t) => ('defer_loading' in t ? `${t.name} deferred` : t.name))).toContain('b deferred');
    expect(forSession).not.toHaveBeenCalled();
  });

  it('refuses an unknown format with USAGE before computing the exposure', async () => {
    const current = vi.fn(async () => exposureOf([]));
    const formatted = new FormattedDefinitions(SEARCH, async (e) => e.shown);
    await expect(formatted.of(current, { format: 'cobol' as never })).rejects.toMatchObject({ code: 'USAGE' });
    expect(current).not.toHaveBeenCalled();
  });
});
