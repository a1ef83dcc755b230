import { describe, expect, it } from 'vitest';
import plugin from '../index.js';

const tool = plugin.tools.find((t) => t.name === 'execute_code');

/** A ctx whose tools are plain functions here; in a host they go through dispatch. */
function ctx(impls, limits = {}) {
  const calls = [];
  return {
    calls,
    signal: AbortSignal.timeout(20_000),
    env: {},
    cwd: process.cwd(),
    log() {},
    progress() {},
    sandboxTools: async () => ({
      tools: Object.keys(impls).map((name) => ({
        name,
        description: `${name} tool`,
        parameters: { type: 'object', properties: { n: { type: 'number' } } },
      })),
      limits: { timeoutMs: 5000, memoryMb: 32, maxToolCalls: 50, maxOutputChars: 2000, ...limits },
    }),
    callTool: async (name, args) => {
      calls.push([name, args]);
      return impls[name](args);
    },
  };
}

describe('execute_code handler', () => {
  it('runs a script that calls the offered tools and returns their combined result', async () => {
    const c = ctx({ double: ({ n }) => ({ value: n * 2 }), greet: () => 'hello' });
    const out = await tool.handler(
      {
        code: 'const a = await tools.double({ n: 21 }); const g = await tools.greet(); console.log(g); return `${g} ${a.value}`;',
      },
      c,
    );
    expect(out).toMatchObject({ status: 'ok', result: 'hello 42', output: 'hello', toolCalls: 2 });
    expect(c.calls).toEqual([
      ['double', { n: 21 }],
      ['greet', {}],
    ]);
  });

  it('turns a failing call into an Error with the envelope code inside the script', async () => {
    const c = ctx({
      broken: () => {
        throw Object.assign(new Error('disk on fire'), { code: 'TOOL_FAILED' });
      },
    });
    const out = await tool.handler(
      { code: 'try { await tools.broken(); } catch (e) { return [e.code, e.message]; }' },
      c,
    );
    expect(out.result).toEqual(['TOOL_FAILED', 'disk on fire']);
  });

  it('offers only the tools the host lists', async () => {
    const out = await tool.handler({ code: 'return Object.keys(tools)' }, ctx({ only: () => 1 }));
    expect(out.result).toEqual(['only']);
  });

  it('applies the host limits: the script deadline', async () => {
    const out = await tool.handler({ code: 'for (;;) {}' }, ctx({}, { timeoutMs: 200 }));
    expect(out.status).toBe('timeout');
  });
});
