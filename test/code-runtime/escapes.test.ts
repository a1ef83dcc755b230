import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCode, type CodeResult } from '#internal/sandbox/code/runtime.js';
import { FILE_TOOLS, LIMITS, Workspace } from './helpers.js';

let workspace: Workspace;

beforeAll(async () => {
  workspace = await Workspace.create({ 'data.json': '{"items":[1,2,3]}', 'note.txt': 'plain text' });
});

afterAll(async () => {
  await workspace.dispose();
});

function run(code: string): Promise<CodeResult> {
  return runCode({ ...LIMITS, code, tools: FILE_TOOLS, callTool: workspace.callTool });
}

/** Runs `code` and returns its result, failing the test with the script's error otherwise. */
async function evaluate(code: string): Promise<unknown> {
  const outcome = await run(code);
  expect(outcome.error).toBeUndefined();
  expect(outcome.status).toBe('ok');
  return outcome.result;
}

describe('escape attempts', () => {
  it('finds no Node globals', async () => {
    expect(
      await evaluate(`return [typeof process, typeof require, typeof module, typeof Buffer, typeof globalThis.process,
        typeof setTimeout, typeof setInterval, typeof setImmediate, typeof fetch]`),
    ).toEqual(Array(9).fill('undefined'));
  });

  it('cannot import host modules, dynamically or statically', async () => {
    const dynamic = await evaluate(`try { const fs = await import('fs'); return 'imported ' + typeof fs.readFileSync; }
      catch (error) { return 'refused: ' + String(error); }`);
    expect(dynamic).toMatch(/^refused: /);

    const node = await evaluate(
      `try { await import('node:child_process'); return 'imported'; } catch (error) { return 'refused'; }`,
    );
    expect(node).toBe('refused');

    const staticImport = await run(`import fs from 'fs';\nreturn typeof fs;`);
    expect(staticImport.status).toBe('error');
    expect(staticImport.error?.name).toBe('SyntaxError');
  });

  it("reaches only the QuickJS global through Function('return this')", async () => {
    expect(
      await evaluate(`const g = Function('return this')();
        return [g === globalThis, typeof g.tools, typeof g.tools.read_file, 'process' in g, typeof g.require];`),
    ).toEqual([true, 'object', 'function', false, 'undefined']);
  });

  it('gets only QuickJS realms from constructor chains on the tools', async () => {
    expect(
      await evaluate(`const F = tools.read_file.constructor.constructor;
        let reached;
        try { reached = F('return process')(); } catch (error) { reached = error.name; }
        return [reached, F('return this')() === globalThis, F === Function, Object.getPrototypeOf(tools) === Object.prototype];`),
    ).toEqual(['ReferenceError', true, true, true]);
  });

  it('cannot replace, add or re-prototype the tools', async () => {
    const result = await evaluate(`
      const original = tools.read_file;
      const attempts = {};
      const attempt = (name, fn) => { try { fn(); attempts[name] = 'no error'; } catch (error) { attempts[name] = error.name; } };
      attempt('assign', () => { tools.read_file = async () => 'fake'; });
      attempt('add', () => { tools.exec = async () => 'fake'; });
      attempt('delete', () => { if (!delete tools.read_file) throw new TypeError('not deleted'); });
      attempt('define', () => Object.defineProperty(tools, 'read_file', { value: async () => 'fake' }));
      attempt('setPrototypeOf', () => Object.setPrototypeOf(tools, { exec: async () => 'fake' }));
      attempt('proto', () => { tools.__proto__ = { exec: async () => 'fake' }; });
      attempt('global', () => { globalThis.tools = { read_file: async () => 'fake' }; });
      attempt('strictAssign', () => { 'use strict'; (function () { 'use strict'; tools.read_file = null; })(); });
      attempt('functionProps', () => { (function () { 'use strict'; tools.read_file.call = null; })(); });
      const content = await tools.read_file({ path: 'note.txt' });
      return { attempts, same: tools.read_file === original, keys: Object.keys(tools), exec: 'exec' in tools,
        frozen: Object.isFrozen(tools), content };`);
    expect(result).toEqual({
      attempts: {
        assign: 'no error',
        add: 'no error',
        delete: 'TypeError',
        define: 'TypeError',
        setPrototypeOf: 'TypeError',
        proto: 'TypeError',
        global: 'no error',
        strictAssign: 'TypeError',
        functionProps: 'TypeError',
      },
      same: true,
      keys: ['read_file', 'list_files'],
      exec: false,
      frozen: true,
      content: 'plain text',
    });
  });

  it('answers a call to a name it was not given with UNKNOWN_TOOL, without dispatching it', async () => {
    const before = workspace.calls.length;
    const result = await evaluate(`try { await tools.write_file({ path: 'x', content: 'y' }); return 'called'; }
      catch (error) { return [error instanceof Error, error.code, error.message, 'write_file' in tools, await tools.then, JSON.stringify(tools)]; }`);
    expect(result).toEqual([
      true,
      'UNKNOWN_TOOL',
      'No tool named "write_file" is available in this sandbox (available: read_file, list_files).',
      false,
      null,
      '{}',
    ]);
    expect(workspace.calls.length).toBe(before);
  });

  it('returns tool values built inside QuickJS, whose constructors lead nowhere', async () => {
    const result = await evaluate(`
      const json = await tools.read_file({ path: 'data.json' });
      const text = await tools.read_file({ path: 'note.txt' });
      let failure;
      try { await tools.read_file({ path: 'missing.txt' }); } catch (error) { failure = error; }
      const probe = (value) => {
        const F = value.constructor.constructor;
        return [F === Function, F('return typeof process')(), F('return this')() === globalThis];
      };
      return { json: probe(json), items: probe(json.items), text: probe(text), error: probe(failure),
        errorIsQuickJsError: failure instanceof Error };`);
    const unreachable = [true, 'undefined', true];
    expect(result).toEqual({
      json: unreachable,
      items: unreachable,
      text: unreachable,
      error: unreachable,
      errorIsQuickJsError: true,
    });
  });

  it('leaves the host realm untouched when the script pollutes its own prototypes', async () => {
    const outcome = await run(`Object.prototype.polluted = 'yes'; Array.prototype.polluted = 'yes';
      JSON.parse = () => ({ hijacked: true });
      return await tools.read_file({ path: 'data.json' });`);
    expect(outcome.status).toBe('ok');
    expect(outcome.result).toEqual({ items: [1, 2, 3] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(([] as unknown as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('gets its replies through the sandbox intrinsics even when the script replaces Promise and JSON', async () => {
    const outcome = await run(`
      globalThis.Promise = function () { throw new Error('hijacked Promise'); };
      JSON.parse = () => ({ hijacked: true });
      const data = await tools.read_file({ path: 'data.json' });
      let unserializable;
      try { await tools.read_file({ path: 'note.txt', extra: 1n }); } catch (error) { unserializable = error.name; }
      return { data, unserializable, keys: Object.getOwnPropertyNames(globalThis).filter((k) => /deliver|waiting|hostCall|settle|ticket/i.test(k)) };`);
    expect(outcome.error).toBeUndefined();
    expect(outcome.result).toEqual({ data: { items: [1, 2, 3] }, unserializable: 'TypeError', keys: [] });
  });

  it('delivers __proto__ and constructor keys to the host as plain own data', async () => {
    const before = workspace.calls.length;
    const outcome = await run(`
      const args = JSON.parse('{"path":"note.txt","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
      return await tools.read_file(args);`);
    expect(outcome.status).toBe('ok');
    const [call] = workspace.calls.slice(before);
    const args = call?.args as Record<string, unknown>;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.keys(args)).toEqual(['path', '__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(args, '__proto__')?.value).toEqual({ polluted: true });
    expect(args.polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as unknown as Record<string, unknown>).polluted).toBeUndefined();
  });
});
