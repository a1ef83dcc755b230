import { MessageChannel, Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { exposeGuarded } from '#internal/core/runners/rpc-guard.js';
import { HOST_RPC_METHODS } from '#internal/boundary/rpc-methods.js';

// A real worker thread speaking raw Comlink wire messages at the host's guarded endpoint.
const ATTACKER = `
const { parentPort, workerData } = require('node:worker_threads');
const port = workerData.port;
const pending = new Map();
port.on('message', (m) => { const r = pending.get(m.id); if (r) { pending.delete(m.id); r(m); } });
let n = 0;
const send = (msg) => new Promise((resolve) => { const id = 'm' + (++n); pending.set(id, resolve); port.postMessage({ ...msg, id }); });
(async () => {
  const raw = (v) => ({ type: 'RAW', value: v });
  const results = {
    get: await send({ type: 'GET', path: ['callTool'] }),
    getProto: await send({ type: 'GET', path: ['constructor'] }),
    set: await send({ type: 'SET', path: ['callTool'], value: raw(1) }),
    construct: await send({ type: 'CONSTRUCT', path: ['log'], argumentList: [] }),
    endpoint: await send({ type: 'ENDPOINT' }),
    release: await send({ type: 'RELEASE' }),
    deepApply: await send({ type: 'APPLY', path: ['callTool', 'call'], argumentList: [] }),
    protoApply: await send({ type: 'APPLY', path: ['__proto__'], argumentList: [] }),
    unknownApply: await send({ type: 'APPLY', path: ['evalInHost'], argumentList: [raw('1+1')] }),
    proxyArg: await send({ type: 'APPLY', path: ['log'], argumentList: [{ type: 'HANDLER', name: 'proxy', value: null }] }),
    allowed: await send({ type: 'APPLY', path: ['log'], argumentList: [raw(7), raw('hello')] }),
  };
  parentPort.postMessage(results);
  port.close();
})();
`;

describe('the Comlink guard', () => {
  it('refuses GET, SET, CONSTRUCT, ENDPOINT, RELEASE and non-allow-listed calls from a real worker', async () => {
    const { port1, port2 } = new MessageChannel();
    const logs: Array<[number, string]> = [];
    const host = {
      log: (id: number, message: string) => void logs.push([id, message]),
      progress: () => {},
      callTool: async () => ({ ok: true, text: 'x' }),
      sandboxTools: async () => ({
        tools: [],
        limits: { timeoutMs: 1, memoryMb: 1, maxToolCalls: 0, maxOutputChars: 1 },
      }),
      session: async () => ({ ok: true }) as const,
      secret: () => 'host internals',
    };
    const stats = exposeGuarded(host, port1, HOST_RPC_METHODS);
    const worker = new Worker(ATTACKER, { eval: true, workerData: { port: port2 }, transferList: [port2] });
    const results = await new Promise<Record<string, { type: string; name?: string; value: any }>>(
      (resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      },
    );
    await worker.terminate();
    port1.close();
    for (const key of [
      'get',
      'getProto',
      'set',
      'construct',
      'endpoint',
      'release',
      'deepApply',
      'protoApply',
      'unknownApply',
      'proxyArg',
    ]) {
      const reply = results[key]!;
      expect(reply.type, key).toBe('HANDLER');
      expect(reply.name, key).toBe('throw');
      expect(reply.value.value.message, key).toMatch(/^RPC refused: /);
    }
    expect(results.get!.value.value.message).toContain('GET is not allowed');
    expect(results.unknownApply!.value.value.message).toContain('"evalInHost" is not allowed');
    expect(results.proxyArg!.value.value.message).toContain('only plain data arguments');
    // The one allow-listed call went through.
    expect(results.allowed!.type).toBe('RAW');
    expect(logs).toEqual([[7, 'hello']]);
    expect(stats.refused).toBe(10);
    expect(stats.passed).toBe(1);
  });
});
