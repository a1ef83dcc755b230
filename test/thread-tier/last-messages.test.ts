/**
 * A handler's last ctx.progress and ctx.log, sent just before it returns, reach the call (they travel on another port
 * than the reply).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixtureOptions } from '../helpers.js';

let host: ToolHost;
beforeAll(async () => {
  host = await createToolHost(fixtureOptions(['last-words']));
});
afterAll(async () => {
  await host.close();
});

describe('messages sent just before a handler returns', () => {
  it('every call gets all its progress and logs before its result', async () => {
    for (let call = 0; call < 8; call += 1) {
      const progress: number[] = [];
      const logs: string[] = [];
      const text = await host.dispatch(
        'last_words',
        {},
        { onProgress: (done) => progress.push(done), onLog: (line) => logs.push(line) },
      );
      expect(text).toBe('said');
      expect(progress).toEqual([0, 50, 100]);
      expect(logs).toEqual(['done']);
    }
  });
});
