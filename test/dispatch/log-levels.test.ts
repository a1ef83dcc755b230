/**
 * `ctx.log(message, level)` carries MCP's logging levels from a handler to the call's onLog and
 * the host's `log` event, from a thread-tier (trusted) plugin and from a process-tier
 * (untrusted) one: 'info' when none is given, and anything unknown taken as 'info'.
 */
import { describe, expect, it } from 'vitest';
import type { LogLevel } from 'toolshed/plugin';
import { fixture, fixtureOptions, withHost } from '../helpers.js';

const EXPECTED: Array<[string, LogLevel]> = [
  ['at debug', 'debug'],
  ['at info', 'info'],
  ['at notice', 'notice'],
  ['at warning', 'warning'],
  ['at error', 'error'],
  ['at a made-up level', 'info'],
];

describe('ctx.log levels', () => {
  for (const trust of ['trusted', 'untrusted'] as const) {
    it(`reach onLog and the host's log event from a ${trust} plugin`, async () => {
      const options = fixtureOptions([]);
      options.config = {
        ...(options.config as object),
        plugins: [{ package: fixture('plugins', 'structured'), trust }],
      };
      await withHost(options, async (host) => {
        const events: Array<[string, LogLevel]> = [];
        host.on('log', (entry) => events.push([entry.message, entry.level]));
        const lines: Array<[string, LogLevel]> = [];
        const one: string[] = [];
        expect(await host.dispatch('levels', {}, { onLog: (message, level) => lines.push([message, level]) })).toBe(
          'logged',
        );
        // A one-argument onLog, as written before levels existed, still gets every line.
        await host.dispatch('levels', {}, { onLog: (message) => one.push(message) });
        expect(lines).toEqual(EXPECTED);
        expect(one).toEqual(EXPECTED.map(([message]) => message));
        expect(events.slice(0, EXPECTED.length)).toEqual(EXPECTED);
      });
    });
  }
});
