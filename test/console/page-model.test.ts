/**
 * The console page's logic that needs no browser: the server-sent-events parser it reads the
 * stream with, the live state the events build (newest first, capped), and the "Try it" form's
 * model from a JSON Schema with the checks made before a call is sent.
 */
import { describe, expect, it } from 'vitest';
import { type ServerEvent, sseParser } from '../../console/src/sse.js';
import { EMPTY, KEPT, reduce } from '../../console/src/live.js';
import { argsFromForm, checkArgs, formFields, formFromArgs, type JsonSchema } from '../../console/src/schema-form.js';
import type { CallEntry } from '#internal/core/console/api-types.js';
import { underRoot } from '../../console/src/format.js';

describe('the event-stream parser', () => {
  it('yields each event once complete, across chunk boundaries, skipping comments and joining data lines', () => {
    const events: ServerEvent[] = [];
    const parser = sseParser((event) => events.push(event));
    parser.push(': ping\n\nevent: call\ndata: {"a"');
    expect(events).toEqual([]);
    parser.push(':1}\n\r\ndata: one\ndata: two\n\nevent: hello\r\ndata:x\r\n\r\n');
    expect(events).toEqual([
      { event: 'call', data: '{"a":1}' },
      { event: 'message', data: 'one\ntwo' },
      { event: 'hello', data: 'x' },
    ]);
  });
});

/** A call entry at second `n`. */
function call(n: number, tool = 'echo'): CallEntry {
  return {
    id: `c${n}`,
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    tool,
    code: 'OK',
    durationMs: 1,
    chain: [],
    resultChars: 2,
  };
}

const event = (name: string, data: unknown): ServerEvent => ({ event: name, data: JSON.stringify(data) });

describe('the live state', () => {
  it('keeps calls newest first, merges the hello of a reconnection by id, and keeps at most 500', () => {
    let live = reduce(EMPTY, event('hello', { generation: 3, calls: [call(1), call(2)], approvals: [] }));
    live = reduce(live, event('call', call(3)));
    expect(live.calls.map((c) => c.id)).toEqual(['c3', 'c2', 'c1']);
    live = reduce(live, event('hello', { generation: 3, calls: [call(2), call(3)], approvals: [] }));
    expect(live.calls.map((c) => c.id)).toEqual(['c3', 'c2', 'c1']);
    for (let n = 4; n < 4 + KEPT; n++) live = reduce(live, event('call', call(n)));
    expect(KEPT).toBe(500);
    expect(live.calls).toHaveLength(500);
    expect(live.calls[0]!.id).toBe(`c${3 + KEPT}`);
  });

  it('adds held calls as they come and drops them once settled; changes, logs and warnings go newest first', () => {
    const held = {
      id: 'a1',
      tool: 'delete_thing',
      args: { id: 'x' },
      reason: 'listed',
      heldAt: '2026-01-01T00:00:00.000Z',
      timeoutMs: 1000,
      chain: [],
    };
    let live = reduce(EMPTY, event('approval', held));
    expect(live.approvals).toEqual([held]);
    live = reduce(live, event('settled', { id: 'a1', approved: true, by: 'caller' }));
    expect(live.approvals).toEqual([]);
    expect(live.settled).toEqual({ id: 'a1', approved: true, by: 'caller', tool: 'delete_thing' });
    live = reduce(
      live,
      event('change', {
        generation: 7,
        at: 't1',
        changes: [
          { kind: 'tool', name: 'a', text: 'first' },
          { kind: 'tool', name: 'b', text: 'second' },
        ],
      }),
    );
    live = reduce(live, event('log', { at: 't2', plugin: 'p', level: 'info', message: 'hi' }));
    live = reduce(live, event('warning', { at: 't3', message: 'careful' }));
    expect(live.generation).toBe(7);
    expect(live.news.map((news) => news.type)).toEqual(['warning', 'log', 'change', 'change']);
    expect(live.news[3]).toEqual({ type: 'change', at: 't1', change: { kind: 'tool', name: 'a', text: 'first' } });
  });
});

const schema: JsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'where' },
    limit: { type: 'integer' },
    ratio: { type: 'number' },
    raw: { type: 'boolean' },
    mode: { enum: ['fast', 2] },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['path'],
};

describe('the "Try it" form', () => {
  it('makes a field for each scalar, enum and array of scalars, and none when a property needs the JSON editor', () => {
    expect(formFields(schema)?.map((f) => [f.name, f.kind, f.item ?? '', f.required])).toEqual([
      ['path', 'string', '', true],
      ['limit', 'integer', '', false],
      ['ratio', 'number', '', false],
      ['raw', 'boolean', '', false],
      ['mode', 'enum', '', false],
      ['tags', 'array', 'string', false],
    ]);
    expect(formFields({ type: 'object', properties: { nested: { type: 'object' } } })).toBeUndefined();
    expect(
      formFields({ type: 'object', properties: { list: { type: 'array', items: { type: 'object' } } } }),
    ).toBeUndefined();
    expect(formFields({ type: 'object' })).toEqual([]);
  });

  it('turns the inputs into typed arguments, leaving out what is empty, and names each problem instead', () => {
    const fields = formFields(schema)!;
    expect(
      argsFromForm(fields, { path: 'a.txt', limit: '5', ratio: '0.5', raw: 'false', mode: '1', tags: 'x\n\ny' }),
    ).toEqual({ args: { path: 'a.txt', limit: 5, ratio: 0.5, raw: false, mode: 2, tags: ['x', 'y'] } });
    expect(argsFromForm(fields, { limit: '1.5', ratio: 'abc' })).toEqual({
      problems: ['path: required', 'limit: must be an integer', 'ratio: must be a number'],
    });
    expect(formFromArgs(fields, { path: 'b', mode: 'fast', tags: ['p', 'q'], raw: true })).toEqual({
      path: 'b',
      mode: '0',
      tags: 'p\nq',
      raw: 'true',
    });
  });

  it('checks JSON arguments for types, enums and required properties, with JSON pointers', () => {
    expect(checkArgs({ path: 'a', tags: ['x'] }, schema)).toEqual([]);
    expect(checkArgs({ limit: 'many', mode: 'slow', tags: [1] }, schema)).toEqual([
      '/path: required',
      '/limit: must be integer',
      '/mode: must be one of "fast", 2',
      '/tags/0: must be string',
    ]);
    expect(checkArgs([], schema)).toEqual(['/: must be object']);
  });
});

describe('the header', () => {
  it('shows the config file relative to the workspace root when it lies inside it, else whole', () => {
    expect(underRoot('/srv/work/toolshed.config.json', '/srv/work')).toBe('toolshed.config.json');
    expect(underRoot('/srv/work/conf/toolshed.config.json', '/srv/work/')).toBe('conf/toolshed.config.json');
    expect(underRoot('/etc/toolshed.config.json', '/srv/work')).toBe('/etc/toolshed.config.json');
    expect(underRoot('/srv/workshop/toolshed.config.json', '/srv/work')).toBe('/srv/workshop/toolshed.config.json');
  });
});
