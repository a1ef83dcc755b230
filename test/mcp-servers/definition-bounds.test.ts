/**
 * The pure parts of issue 40's routes 7 and 8: one budget per tool definition
 * (definition-budget.ts), structured content inside the result cap (tier-outcome.ts), and
 * pins that cover every field passed on and hold tools new since the accepted listing
 * (definition-pins.ts, on a pin file in a temp folder).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { boundDefinition, definitionSize } from '#internal/core/mcp-client/definition-budget.js';
import { withContent } from '#internal/boundary/tier-outcome.js';
import { DefinitionPins, legacyDefinitionHash } from '#internal/core/mcp-client/definition-pins.js';
import { changeLines } from '#internal/core/cli/accept.js';
import type { UpstreamTool } from '#internal/core/mcp-client/tools.js';
import { tempDir } from '../helpers.js';

const work = tempDir('toolshed-definition-bounds-');
afterAll(() => work.cleanup());

describe('boundDefinition', () => {
  const small: UpstreamTool = {
    name: 'small',
    description: 'Small.',
    inputSchema: { type: 'object', properties: { a: { type: 'string', description: 'A.' } } },
  };

  it('leaves a definition within its budget as it is (the same object)', () => {
    expect(boundDefinition(small, 1_000)).toEqual({ tool: small, size: definitionSize(small), cut: 0 });
    expect((boundDefinition(small, 1_000) as { tool: UpstreamTool }).tool).toBe(small);
  });

  it('cuts the prose of every field to one length that fits, marked, and never a property named description', () => {
    const tool: UpstreamTool = {
      name: 'stuffed',
      title: 't'.repeat(5_000),
      description: 'Short.',
      annotations: { title: 'a'.repeat(5_000), readOnlyHint: true },
      inputSchema: {
        type: 'object',
        properties: { description: { type: 'string', description: 'd'.repeat(5_000), enum: ['x', 'y'] } },
        anyOf: [{ $comment: 'c'.repeat(5_000) }],
      },
      outputSchema: { type: 'object', description: 'o'.repeat(5_000) },
    };
    const bounded = boundDefinition(tool, 4_000);
    if (!('tool' in bounded)) throw new Error(bounded.refused);
    expect(bounded.size).toBeLessThanOrEqual(4_000);
    expect(bounded.cut).toBe(5);
    const cut = bounded.tool;
    // The short description stays whole; every long one ends with the same mark, cut to the same length.
    expect(cut.description).toBe('Short.');
    const kept = (text: unknown) => /^(.)\1*… \[cut by toolshed: \d+ characters more\]$/.test(String(text));
    for (const text of [
      cut.title,
      cut.annotations!.title,
      (cut.inputSchema.properties as any).description.description,
      (cut.inputSchema.anyOf as any)[0].$comment,
      cut.outputSchema!.description,
    ])
      expect(kept(text), String(text).slice(0, 20)).toBe(true);
    // Structure untouched: the property named description, its enum, the annotations' hints.
    expect((cut.inputSchema.properties as any).description.enum).toEqual(['x', 'y']);
    expect(cut.annotations!.readOnlyHint).toBe(true);
    // The server's own object is not changed.
    expect(tool.title).toHaveLength(5_000);
  });

  it('refuses a definition whose structure alone is over the budget, saying so', () => {
    const tool: UpstreamTool = {
      name: 'enum',
      description: 'E.',
      inputSchema: {
        type: 'object',
        properties: { c: { enum: Array.from({ length: 500 }, (_, i) => `value number ${i}`) } },
      },
    };
    const bounded = boundDefinition(tool, 2_000);
    expect(bounded).toMatchObject({
      refused: expect.stringMatching(
        /^its definition is \d+ characters as JSON, over listing\.definitionChars \(2000\), and still \d+ with every description and title in it cut$/,
      ),
    });
  });

  it('never splits a surrogate pair', () => {
    const tool: UpstreamTool = { name: 'emoji', description: '😀'.repeat(3_000), inputSchema: { type: 'object' } };
    const bounded = boundDefinition(tool, 1_000);
    if (!('tool' in bounded)) throw new Error(bounded.refused);
    // A lone surrogate would be a character no encoder can write.
    expect(bounded.tool.description).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});

describe('withContent (structured content inside the result cap)', () => {
  const structured = { data: 'y'.repeat(5_000) };
  it('keeps blocks and structured content that fit', () => {
    const content = { blocks: [{ type: 'text' as const, text: 'hi' }], structured: { n: 1 } };
    expect(withContent({ ok: true, text: 'hi' }, content, 1_000)).toEqual({ ok: true, text: 'hi', content });
  });

  it('leaves out structured content over the cap, keeping the blocks and a marked note in both the blocks and the text', () => {
    const note =
      "[RESULT_TRUNCATED: the result's structured content (5011 characters) exceeds the limit of 1000; it is left out]";
    expect(
      withContent({ ok: true, text: 'hi' }, { blocks: [{ type: 'text', text: 'hi' }], structured }, 1_000),
    ).toEqual({
      ok: true,
      text: `hi\n${note}`,
      content: {
        blocks: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: note },
        ],
      },
    });
  });

  it('with no blocks, or blocks over the cap too, keeps only the text', () => {
    expect(withContent({ ok: true, text: '{"data":"yyy' }, { blocks: [], structured }, 1_000)).toEqual({
      ok: true,
      text: `{"data":"yyy\n[RESULT_TRUNCATED: the result's content blocks (5038 characters) exceed the limit of 1000; only their text is shown]`,
    });
    const big = withContent(
      { ok: true, text: 'x' },
      { blocks: [{ type: 'text', text: 'x'.repeat(2_000) }], structured },
      1_000,
    );
    expect(big.content).toBeUndefined();
  });
});

describe('DefinitionPins', () => {
  let n = 0;
  const pins = (mode: 'hold' | 'warn' | 'accept' = 'hold', file = path.join(work.dir, `pins-${n++}.json`)) =>
    new DefinitionPins('srv', mode, 'config', file);
  const tool = (name: string, extra: Partial<UpstreamTool> = {}): UpstreamTool => ({
    name,
    description: `${name} does a thing.`,
    inputSchema: { type: 'object' },
    ...extra,
  });

  it('pins the first listing whole; a tool listed later is an addition, held until accepted', () => {
    const p = pins();
    expect(p.review([tool('a')])).toEqual([]);
    const changes = p.review([tool('a'), tool('b')]);
    expect(changes).toEqual([
      {
        server: 'srv',
        tool: 'b',
        kind: 'added',
        mode: 'hold',
        acceptedAt: expect.any(String),
        diff: expect.arrayContaining(['+   b does a thing.']),
      },
    ]);
    expect(p.accept(['b'])).toHaveLength(1);
    expect(p.review([tool('a'), tool('b')])).toEqual([]);
  });

  it('an empty first listing is accepted too: the first tool after it is an addition', () => {
    const p = pins();
    expect(p.review([])).toEqual([]);
    expect(p.review([tool('a')])).toMatchObject([{ tool: 'a', kind: 'added' }]);
  });

  it("a new host reads the pin file: the file's listing is the accepted one", () => {
    const file = path.join(work.dir, 'shared.json');
    pins('hold', file).review([tool('a')]);
    expect(pins('hold', file).review([tool('a'), tool('b')])).toMatchObject([{ tool: 'b', kind: 'added' }]);
  });

  it('a changed outputSchema, execution, icons or _meta is a change', () => {
    for (const extra of [
      { outputSchema: { type: 'object', properties: { secret: { type: 'string' } } } },
      { execution: { taskSupport: 'required' } },
      { icons: [{ src: 'data:,x' }] },
      { meta: { 'ui/resourceUri': 'ui://x' } },
    ]) {
      const p = pins();
      p.review([tool('a')]);
      expect(p.review([tool('a', extra)]), JSON.stringify(extra)).toMatchObject([{ tool: 'a', kind: 'changed' }]);
    }
  });

  it('accept mode pins additions silently; a pin of an older toolshed (title, description, schema, annotations) is carried over without a change', () => {
    const p = pins('accept');
    p.review([tool('a')]);
    expect(p.review([tool('a'), tool('b')])).toEqual([]);

    const file = path.join(work.dir, 'legacy.json');
    const old = tool('a', { outputSchema: { type: 'object' } });
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        config: 'config',
        server: 'srv',
        tools: { a: { hash: legacyDefinitionHash(old), text: 'a', acceptedAt: '2026-01-01T00:00:00.000Z' } },
      }),
    );
    const carried = pins('hold', file);
    expect(carried.review([old])).toEqual([]);
    // From then on the output schema is part of the pin.
    expect(carried.review([tool('a', { outputSchema: { type: 'object', properties: { x: {} } } })])).toMatchObject([
      { kind: 'changed', acceptedAt: '2026-01-01T00:00:00.000Z' },
    ]);
  });

  it('toolshed accept says which are new', () => {
    expect(
      changeLines({ server: 'srv', tool: 'b', name: 'b', kind: 'added', mode: 'hold', acceptedAt: 'T', diff: ['+ x'] }),
    ).toEqual(["srv: b held, new since its server's tools were accepted on T:", '  + x']);
  });
});
