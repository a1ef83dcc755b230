/** createTestContext records each ctx.log line with its level, coerced as the host coerces it. */
import { describe, expect, it } from 'vitest';
import { createTestContext, type LogLevel } from 'toolshed/plugin';

describe('createTestContext and log levels', () => {
  it('records the level of every line: as given, info by default, info for an unknown one', () => {
    const ctx = createTestContext();
    ctx.log('plain');
    ctx.log('careful', 'warning');
    ctx.log('odd', 'fatal' as LogLevel);
    expect(ctx.logs).toEqual(['plain', 'careful', 'odd']);
    expect(ctx.logEntries).toEqual([
      { message: 'plain', level: 'info' },
      { message: 'careful', level: 'warning' },
      { message: 'odd', level: 'info' },
    ]);
  });
});
