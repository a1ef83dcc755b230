import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallOutcome } from 'toolshed';
import { runCode, type CodeResult } from '#internal/sandbox/code/runtime.js';
import { FILE_TOOLS, LIMITS, Workspace } from './helpers.js';

let workspace: Workspace;

beforeAll(async () => {
  workspace = await Workspace.create({
    'a.txt': 'first part',
    'b.txt': 'second part',
    'c.txt': 'third part',
    'prices.json': '{"apple":3,"pear":5}',
    'answer.txt': '42',
  });
});

afterAll(async () => {
  await workspace.dispose();
});

function run(code: string, callTool = workspace.callTool): Promise<CodeResult> {
  return runCode({ ...LIMITS, code, tools: FILE_TOOLS, callTool });
}

describe('scripts that call tools', () => {
  it('reads three files through tools and combines them', async () => {
    const before = workspace.calls.length;
    const outcome = await run(`
      const names = (await tools.list_files()).filter((name) => name.endsWith('.txt') && name !== 'answer.txt');
      const parts = [];
      for (const path of names) {
        const text = await tools.read_file({ path });
        console.log(path + ': ' + text.length + ' chars');
        parts.push(text);
      }
      return parts.join(' + ');`);
    expect(outcome).toMatchObject({
      status: 'ok',
      result: 'first part + second part + third part',
      output: 'a.txt: 10 chars\nb.txt: 11 chars\nc.txt: 10 chars',
      toolCalls: 4,
    });
    expect(workspace.calls.slice(before).map((call) => [call.name, call.args])).toEqual([
      ['list_files', {}],
      ['read_file', { path: 'a.txt' }],
      ['read_file', { path: 'b.txt' }],
      ['read_file', { path: 'c.txt' }],
    ]);
  });

  it('runs tool calls concurrently with Promise.all', async () => {
    const outcome = await run(`
      const texts = await Promise.all(['a.txt', 'b.txt', 'c.txt'].map((path) => tools.read_file({ path })));
      return texts.map((text) => text.split(' ')[0]);`);
    expect(outcome).toMatchObject({ status: 'ok', result: ['first', 'second', 'third'], toolCalls: 3 });
  });

  it('settles each concurrent call with its own reply when the replies come back out of order', async () => {
    // The first call answers last and the second fails: each reply must reach the call it belongs to.
    // c answers first; b once c has answered; a once b has.
    const answered: Record<string, () => void> = {};
    const gates = Object.fromEntries(
      ['a.txt', 'b.txt', 'c.txt'].map((path) => [path, new Promise<void>((resolve) => (answered[path] = resolve))]),
    );
    const after: Record<string, string> = { 'a.txt': 'b.txt', 'b.txt': 'c.txt' };
    const outOfOrder = async (name: string, args: unknown): Promise<CallOutcome> => {
      const { path } = args as { path: string };
      if (after[path]) await gates[after[path]!];
      setImmediate(() => answered[path]?.());
      if (path === 'b.txt') return { ok: false, code: 'TOOL_FAILED', message: `no ${path} today` };
      return { ok: true, text: `${name}:${path}` };
    };
    const outcome = await run(
      `const settled = await Promise.allSettled(['a.txt', 'b.txt', 'c.txt'].map((path) => tools.read_file({ path })));
      return settled.map((s) => s.status === 'fulfilled' ? s.value : s.reason.code + ' ' + s.reason.message);`,
      outOfOrder,
    );
    expect(outcome).toMatchObject({
      status: 'ok',
      result: ['read_file:a.txt', 'TOOL_FAILED no b.txt today', 'read_file:c.txt'],
      toolCalls: 3,
    });
  });

  it('parses JSON results and keeps other text as strings', async () => {
    const outcome = await run(`
      const prices = await tools.read_file({ path: 'prices.json' });
      const answer = await tools.read_file({ path: 'answer.txt' });
      const note = await tools.read_file({ path: 'a.txt' });
      return { total: prices.apple + prices.pear, answer: [typeof answer, answer], note: typeof note };`);
    expect(outcome.result).toEqual({ total: 8, answer: ['number', 42], note: 'string' });
  });

  it('surfaces tool errors in the script as Errors carrying the envelope code', async () => {
    const outcome = await run(`
      const codes = [];
      for (const args of [{ path: 'missing.txt' }, { path: 7 }, { path: '../outside.txt' }]) {
        try { await tools.read_file(args); codes.push('no error'); }
        catch (error) { codes.push([error instanceof Error, error.code, error.message]); }
      }
      return codes;`);
    expect(outcome.status).toBe('ok');
    expect(outcome.result).toEqual([
      [true, 'TOOL_FAILED', 'Cannot read missing.txt: ENOENT'],
      [true, 'INVALID_ARGUMENTS', '/path: must be string'],
      [true, 'PERMISSION_DENIED', '../outside.txt is outside the workspace'],
    ]);
  });

  it('fails the run with the code of an uncaught tool error', async () => {
    const outcome = await run(`const text = await tools.read_file({ path: 'missing.txt' });\nreturn text;`);
    expect(outcome.status).toBe('error');
    expect(outcome.error).toMatchObject({
      name: 'Error',
      code: 'TOOL_FAILED',
      message: 'Cannot read missing.txt: ENOENT',
    });
  });

  it('turns a host callTool failure into TOOL_FAILED inside the script', async () => {
    const broken = async (): Promise<CallOutcome> => {
      throw new Error('worker pool closed');
    };
    const malformed = async (): Promise<CallOutcome> => ({ ok: 'yes' }) as unknown as CallOutcome;
    for (const callTool of [broken, malformed]) {
      const outcome = await run(
        `try { await tools.read_file({ path: 'a.txt' }); } catch (error) { return error.code; }`,
        callTool,
      );
      expect(outcome.result).toBe('TOOL_FAILED');
    }
  });

  it('sends an omitted argument object as {}', async () => {
    const before = workspace.calls.length;
    await run('return await tools.list_files();');
    expect(workspace.calls.slice(before).map((call) => call.args)).toEqual([{}]);
  });
});

describe('results, output and errors', () => {
  it('captures every console level, marking warnings and errors', async () => {
    const outcome = await run(`console.log('plain', 1, { a: [1] }); console.info('info'); console.debug('debug');
      console.warn('careful'); console.error(new TypeError('bad input')); return null;`);
    expect(outcome.output).toBe('plain 1 {"a":[1]}\ninfo\ndebug\n[warn] careful\n[error] TypeError: bad input');
  });

  it('returns null for undefined and a string for values JSON cannot hold', async () => {
    expect((await run('const x = 1;')).result).toBeNull();
    expect((await run('return 10n;')).result).toBe('10');
    const cyclic = await run('const a = {}; a.self = a; return a;');
    expect(cyclic).toMatchObject({ status: 'ok', result: '[object Object]' });
  });

  it('reports syntax errors with the line of the submitted code', async () => {
    const outcome = await run('const a = 1;\nconst b = ;\nreturn a;');
    expect(outcome.status).toBe('error');
    expect(outcome.error?.name).toBe('SyntaxError');
    expect(outcome.error?.stack).toContain('script.js:2');
  });

  it('reports a thrown non-Error value and keeps a custom code', async () => {
    expect((await run('throw "boom";')).error).toMatchObject({ name: 'Error', message: 'Uncaught boom' });
    const coded = await run("const e = new RangeError('too far'); e.code = 'MY_CODE'; throw e;");
    expect(coded.error).toMatchObject({ name: 'RangeError', message: 'too far', code: 'MY_CODE' });
  });

  it('reports a script that waits on a promise nothing can settle', async () => {
    const outcome = await run('await new Promise(() => {});');
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'SANDBOX_STALLED' } });
  });

  it('produces results that survive a JSON round trip', async () => {
    const outcomes = [
      await run("console.log('x'); return { list: [1, 'two', null], nested: { ok: true } };"),
      await run('throw new Error("no");'),
    ];
    for (const outcome of outcomes) {
      expect(JSON.parse(JSON.stringify(outcome))).toEqual(outcome);
      expect(Object.keys(outcome).sort()).toEqual(
        ['durationMs', 'output', 'result', 'status', 'toolCalls', ...(outcome.error ? ['error'] : [])].sort(),
      );
    }
  });

  it('keeps each run isolated from the previous one', async () => {
    await run('globalThis.leftover = "from run one"; Object.prototype.marker = 1; return null;');
    expect((await run('return [typeof leftover, typeof ({}).marker];')).result).toEqual(['undefined', 'undefined']);
  });
});
