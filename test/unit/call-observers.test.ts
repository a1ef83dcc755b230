/**
 * The observer list of a call (core/call/call-observer.ts) on the stage: the order its watches are
 * told in, what a throw inside the host and a throw from a watch become, the breaker's gate and
 * bookkeeping as an observer (breaker-observer.ts), and the host's `call` monitor. Through real
 * hosts: test/tracing/, test/auth/audit-log.test.ts, test/dispatch/circuit-breaker.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { CallWatches, type DispatchObserver, type ObservedCall } from '#internal/core/call/dispatch-watches.js';
import { breakerObserver } from '#internal/core/call/breaker-observer.js';
import { breakerKeys, CircuitBreaker } from '#internal/core/call/breaker.js';
import { CallMonitor } from '#internal/core/call/call-monitor.js';
import { TOP_LEVEL } from '#internal/core/call/chain.js';
import { failure, type CallOutcome } from '#internal/boundary/outcome.js';
import { ManualClock } from '../helpers.js';

const OK: CallOutcome = { ok: true, text: 'done' };
const crashed = (error: unknown): CallOutcome => failure('TOOL_CRASHED', `crashed: ${(error as Error).message}`);
const call: ObservedCall = {
  tool: 'read_note',
  args: () => ({ digest: 'd', value: { path: 'a' } }),
  options: { sessionId: 's1' },
  context: TOP_LEVEL,
};
/** A stand-in tool record: the breaker reads only its name and plugin. */
const record = { name: 'read_note', plugin: { source: { name: 'notes' } } } as never;

/** An observer that logs each point it is told of, under `name`. */
function logging(name: string, log: string[]): DispatchObserver {
  return {
    started: () => {
      log.push(`${name} started`);
      return {
        within: async (run) => {
          log.push(`${name} within`);
          return run();
        },
        settled: (outcome) => void log.push(`${name} settled ${outcome.ok ? 'OK' : outcome.code}`),
        threw: (error, outcome) =>
          void log.push(`${name} threw ${(error as Error).message} as ${outcome.ok ? 'OK' : outcome.code}`),
      };
    },
  };
}

describe('the watches of a call', () => {
  it('start in list order and are told of the outcome innermost first, before the caller has it', async () => {
    const log: string[] = [];
    const watches = CallWatches.start([logging('audit', log), logging('monitor', log), logging('spans', log)], call);
    const outcome = await watches!.run(async () => {
      log.push('run');
      return OK;
    }, crashed);
    log.push('caller');
    expect(outcome).toBe(OK);
    expect(log).toEqual([
      'audit started',
      'monitor started',
      'spans started',
      'audit within',
      'monitor within',
      'spans within',
      'run',
      'spans settled OK',
      'monitor settled OK',
      'audit settled OK',
      'caller',
    ]);
  });

  it('are none when no observer wants the call', () => {
    expect(CallWatches.start([{ started: () => undefined }], call)).toBeUndefined();
  });

  it('hand back the call itself when no watch wraps it or wants its end (the breaker alone)', async () => {
    const breaker = new CircuitBreaker({ failures: 2, windowMs: 60_000, coolDownMs: 30_000 }, new ManualClock());
    const watches = CallWatches.start([breakerObserver(breaker)], call)!;
    const running = Promise.resolve(OK);
    expect(watches.run(() => running, crashed)).toBe(running);
    const failing = Promise.reject(new Error('boom'));
    await expect(watches.run(() => failing, crashed)).rejects.toThrow('boom');
  });

  it('tell a throw inside the host as the outcome it becomes, and throw it on', async () => {
    const log: string[] = [];
    const watches = CallWatches.start([logging('outer', log), logging('inner', log)], call);
    await expect(watches!.run(() => Promise.reject(new Error('boom')), crashed)).rejects.toThrow('boom');
    expect(log.slice(-2)).toEqual(['inner threw boom as TOOL_CRASHED', 'outer threw boom as TOOL_CRASHED']);
  });

  it("make a watch's own throw the call's: the watches outside it hear of it", async () => {
    const log: string[] = [];
    const faulty: DispatchObserver = {
      started: () => ({
        settled: () => {
          throw new Error('sink broke');
        },
      }),
    };
    const watches = CallWatches.start([logging('outer', log), faulty], call);
    await expect(watches!.run(async () => OK, crashed)).rejects.toThrow('sink broke');
    expect(log.at(-1)).toBe('outer threw sink broke as TOOL_CRASHED');
  });

  it('refuse at the first watch that gives a reason, and adopt nested contexts through each', () => {
    const asked: string[] = [];
    const watches = CallWatches.start(
      [
        {
          started: () => ({
            admit: () => {
              asked.push('first');
              return undefined;
            },
          }),
        },
        { started: () => ({ admit: () => (asked.push('second'), 'open circuit') }) },
        { started: () => ({ admit: () => (asked.push('third'), 'never asked') }) },
      ],
      call,
    );
    expect(watches!.admit(record, 's1')).toBe('open circuit');
    expect(asked).toEqual(['first', 'second']);
    const nested = { ...TOP_LEVEL };
    const adopted = { ...TOP_LEVEL };
    const adopting = CallWatches.start([{ started: () => ({ adopt: () => adopted }) }, { started: () => ({}) }], call);
    expect(adopting!.adopt(nested)).toBe(adopted);
  });
});

describe('the breaker as an observer', () => {
  const limits = { failures: 2, windowMs: 60_000, coolDownMs: 30_000 };

  it('books failures of calls let through while idle, and refuses once their circuit is open', () => {
    const breaker = new CircuitBreaker(limits, new ManualClock());
    const observer = breakerObserver(breaker);
    for (const session of ['a', 'b']) {
      const watches = CallWatches.start([observer], { ...call, options: { sessionId: session } })!;
      expect(watches.admit(record, session)).toBeUndefined();
      watches.ran(record, failure('TOOL_CRASHED', 'x'), 'crashed', session);
    }
    expect(breaker.openOf(breakerKeys('read_note', 'notes'))).toBeDefined();
    const next = CallWatches.start([observer], call)!;
    expect(next.admit(record, 's1')).toMatch(/crashed/);
  });

  it('books nothing for a call that succeeded while idle', () => {
    const breaker = new CircuitBreaker(limits, new ManualClock());
    const watches = CallWatches.start([breakerObserver(breaker)], call)!;
    watches.admit(record, 's1');
    watches.ran(record, OK, 'ok', 's1');
    expect(breaker.idle).toBe(true);
  });
});

describe("the host's call monitor", () => {
  it('watches only while someone listens, and a listener that throws changes nothing', async () => {
    let listening = false;
    const told: string[] = [];
    const monitor = new CallMonitor(
      () => listening,
      (record) => {
        told.push(`${record.tool} ${record.code} ${record.sessionId}`);
        throw new Error('listener broke');
      },
    );
    expect(monitor.started(call)).toBeUndefined();
    listening = true;
    const watches = CallWatches.start([monitor], call)!;
    await expect(watches.run(async () => OK, crashed)).resolves.toBe(OK);
    expect(told).toEqual(['read_note OK s1']);
  });
});
