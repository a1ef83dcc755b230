import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { declarationFor, describeExecuteCode } from '#internal/sandbox/code/declarations.js';
import type { CodeToolSpec } from '#internal/sandbox/code/runtime.js';
import { LIMITS } from './helpers.js';

function spec(parameters: Record<string, unknown>, description = 'Does things.', name = 'do_it'): CodeToolSpec {
  return { name, description, parameters };
}

/** Syntax errors TypeScript reports for the declaration block of a description. */
function syntaxErrors(description: string): string[] {
  const block = /```ts\n([\s\S]*?)```/.exec(description)?.[1] ?? '';
  const output = ts.transpileModule(block, {
    reportDiagnostics: true,
    compilerOptions: { target: ts.ScriptTarget.ES2022 },
  });
  return (output.diagnostics ?? []).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

describe('declarationFor', () => {
  it('renders the read_file example', () => {
    const readFile = spec(
      {
        type: 'object',
        properties: { path: { type: 'string', description: 'path' }, offset: { type: 'number' } },
        required: ['path'],
      },
      'Read a file',
      'read_file',
    );
    expect(declarationFor(readFile)).toBe(
      '/** Read a file */\nread_file(args: { /** path */ path: string; offset?: number }): Promise<unknown>;',
    );
  });

  it('marks the whole argument optional when nothing is required', () => {
    expect(declarationFor(spec({ type: 'object', properties: { limit: { type: 'integer' } } }))).toContain(
      'do_it(args?: { limit?: number })',
    );
  });

  it('renders enums and consts as literal unions', () => {
    const text = declarationFor(
      spec({
        type: 'object',
        properties: { mode: { enum: ['fast', 'safe', 3, null] }, kind: { const: 'file' } },
        required: ['mode', 'kind'],
      }),
    );
    expect(text).toContain('mode: "fast" | "safe" | 3 | null; kind: "file"');
  });

  it('renders nested objects, arrays of objects and unions inside arrays', () => {
    const text = declarationFor(
      spec({
        type: 'object',
        properties: {
          edits: {
            type: 'array',
            description: 'Edits to apply',
            items: {
              type: 'object',
              properties: { line: { type: 'integer' }, text: { type: 'string' } },
              required: ['line'],
            },
          },
          ids: { type: 'array', items: { type: ['string', 'number'] } },
          point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }] },
          meta: { type: 'object', additionalProperties: { type: 'string' } },
        },
        required: ['edits'],
      }),
    );
    expect(text).toContain('/** Edits to apply */ edits: { line: number; text?: string }[]');
    expect(text).toContain('ids?: (string | number)[]');
    expect(text).toContain('point?: [number, number]');
    expect(text).toContain('meta?: Record<string, string>');
  });

  it('resolves local $refs and renders nullable and anyOf', () => {
    const text = declarationFor(
      spec({
        type: 'object',
        $defs: {
          range: {
            type: 'object',
            properties: { from: { type: 'integer' }, to: { type: 'integer' } },
            required: ['from', 'to'],
          },
        },
        properties: {
          range: { $ref: '#/$defs/range', description: 'Lines to read' },
          encoding: { type: 'string', nullable: true, default: 'utf8' },
          target: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/range' }] },
        },
      }),
    );
    expect(text).toContain('/** Lines to read */ range?: { from: number; to: number }');
    expect(text).toContain('/** (default: "utf8") */ encoding?: string | null');
    expect(text).toContain('target?: string | { from: number; to: number }');
  });

  it('quotes names that are not identifiers and keeps comments closed', () => {
    const text = declarationFor(
      spec(
        {
          type: 'object',
          properties: { 'content-type': { type: 'string', description: 'MIME type, e.g. text/* */ sneaky' } },
        },
        'Fetch a URL',
        'http-get',
      ),
    );
    expect(text).toContain('"http-get"(args?: { /** MIME type, e.g. text/* *\\/ sneaky */ "content-type"?: string })');
    expect(text.match(/\*\//g)).toHaveLength(2);
  });

  it('turns a multi-line description into a block comment', () => {
    expect(declarationFor(spec({ type: 'object' }, 'First line.\nSecond line.'))).toBe(
      '/**\n * First line.\n * Second line.\n */\ndo_it(args?: Record<string, unknown>): Promise<unknown>;',
    );
  });
});

describe('describeExecuteCode', () => {
  it('produces a declaration block that parses as TypeScript', () => {
    const specs = [
      spec(
        {
          type: 'object',
          properties: {
            q: { type: 'string', enum: ['a', 'b'] },
            n: {
              type: 'object',
              properties: { x: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
            },
          },
        },
        'Query',
        'query',
      ),
      spec(
        { type: 'object', properties: { 'weird key': { type: 'boolean' } }, required: ['weird key'] },
        'Weird\nmulti-line',
        'weird-tool',
      ),
    ];
    const description = describeExecuteCode(specs, LIMITS);
    expect(description).toContain('declare const tools: {');
    expect(syntaxErrors(description)).toEqual([]);
  });
});
