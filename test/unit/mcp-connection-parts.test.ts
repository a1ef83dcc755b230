/**
 * The parts an MCP server's connection is made of, without a server: the restart schedule,
 * the state it reports, the tools last listed and when to list again, an attempt's stderr and
 * ending, and why a handshake or a probe failed. No process, socket or real time.
 */
import { describe, expect, it } from 'vitest';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { RestartBackoff, restartDelay } from '#internal/core/mcp-client/restart-backoff.js';
import { ConnectionStatus } from '#internal/core/mcp-client/connection-status.js';
import { ListedTools, Relisting } from '#internal/core/mcp-client/listed-tools.js';
import { Attempt, StderrTail, exitText } from '#internal/core/mcp-client/attempt.js';
import { errorText, handshakeFailure, probeFailure } from '#internal/core/mcp-client/connection-failure.js';
import { ListingTimeout } from '#internal/core/mcp-client/listing.js';
import { EraChoice } from '#internal/core/mcp-client/era-choice.js';
import { HttpProbes } from '#internal/core/mcp-client/http-probes.js';
import type { ResolvedServer } from '#internal/core/mcp-client/config.js';
import { timers } from '#internal/core/state/clock.js';
import { ManualClock } from '../helpers.js';

const attempt = () => new Attempt(1, {} as never);
const server = { name: 'docs', startTimeoutMs: 5000, protocol: 'auto' } as ResolvedServer;

describe('the restart schedule', () => {
  it('waits 500 ms, doubling, up to 30 s', () => {
    expect([0, 1, 2, 5, 6, 20].map(restartDelay)).toEqual([500, 1000, 2000, 16_000, 30_000, 30_000]);
  });

  it('counts failures, and starts over after a connection that stayed up 10 s', () => {
    let now = 0;
    const backoff = new RestartBackoff(() => now);
    expect(backoff.retry('exited', undefined)).toEqual({ when: 'after', delayMs: 500, next: 'restarting in 500 ms' });
    expect(backoff.retry('exited', undefined)).toMatchObject({ delayMs: 1000, next: 'restarting in 1 s' });
    backoff.up();
    now += 9_999;
    backoff.down();
    expect(backoff.retry('exited', undefined)).toMatchObject({ delayMs: 2000 });
    backoff.up();
    now += 10_000;
    backoff.down(false);
    expect(backoff.retry('exited', undefined)).toMatchObject({ delayMs: 4000 });
    backoff.up();
    now += 10_000;
    backoff.down();
    expect(backoff.retry('exited', { probeIntervalMs: 1000 })).toEqual({
      when: 'after',
      delayMs: 500,
      next: 'reconnecting in 500 ms',
    });
  });

  it('waits for an answer while an HTTP server is unreachable, and initializes a session at once', () => {
    const backoff = new RestartBackoff(() => 0);
    expect(backoff.retry('unreachable', { probeIntervalMs: 30_000 })).toEqual({
      when: 'answered',
      next: 'reconnecting as soon as it answers a probe (one every 30 s to 45 s)',
    });
    expect(backoff.retry('unreachable', { probeIntervalMs: 30_000 }, true)).toEqual({
      when: 'now',
      next: 'initializing a new session',
    });
    // Neither counted as a failure.
    expect(backoff.retry('exited', undefined)).toMatchObject({ delayMs: 500 });
  });
});

describe('the connection status', () => {
  it('starts connecting, or not at all with the reason the config gave', () => {
    expect(new ConnectionStatus('docs', undefined)).toMatchObject({
      state: 'connecting',
      reason: 'the MCP server docs is starting',
      restarts: 0,
    });
    const off = new ConnectionStatus('docs', 'disabled in the config');
    expect(off.state).toBe('not started');
    expect(off.why()).toBe('disabled in the config');
  });

  it('has no reason while connected, and counts each retry', () => {
    const status = new ConnectionStatus('docs', undefined);
    status.set('connected');
    expect(status.why()).toBeUndefined();
    status.set('exited', 'it exited');
    status.retrying('restarting (it exited)');
    expect(status).toMatchObject({ state: 'connecting', restarts: 1 });
    expect(status.why()).toBe('the MCP server docs is restarting (it exited)');
    status.handshake({ name: 'srv', version: '1' }, '2025-06-18');
    status.handshake(undefined, '2026-07-28');
    expect(status).toMatchObject({ serverInfo: { name: 'srv', version: '1' }, protocolVersion: '2026-07-28' });
  });
});

describe('the tools last listed', () => {
  it('takes a listing whole, and knows which tools must run as tasks', () => {
    const list = new ListedTools();
    expect(list.listed).toBe(false);
    const tools = [{ name: 'a', execution: { taskSupport: 'required' } }, { name: 'b' }] as never;
    list.take({ tools, outputSchemas: new Map([['a', {}]]), notes: ['cut'] });
    expect(list).toMatchObject({ listed: true, tools, notes: ['cut'] });
    expect(list.requiresTask('a')).toBe(true);
    expect(list.requiresTask('b')).toBe(false);
  });

  it('keeps one note of a failed re-list', () => {
    const list = new ListedTools();
    list.take({ tools: [], outputSchemas: new Map(), notes: ['cut'] });
    list.relistFailed('docs', 'first');
    expect(list.relistFailed('docs', 'second')).toBe('re-listing tools of docs failed, the last list is kept: second');
    expect(list.notes).toEqual(['cut', 're-listing tools of docs failed, the last list is kept: second']);
  });
});

describe('re-listing', () => {
  it('debounces list_changed by 250 ms, but re-lists 2 s after the first of a storm', () => {
    const clock = new ManualClock();
    const relisting = new Relisting(timers(clock));
    let relists = 0;
    relisting.changed(() => relists++);
    clock.advance(200);
    relisting.changed(() => relists++);
    clock.advance(249);
    expect(relists).toBe(0);
    clock.advance(1);
    expect(relists).toBe(1);
    for (let i = 0; i < 10; i++) {
      relisting.changed(() => relists++);
      clock.advance(200);
    }
    expect(relists).toBe(2);
    relisting.changed(() => relists++);
    relisting.cancel();
    clock.advance(5000);
    expect(relists).toBe(2);
  });

  it('lists once more after the listing in flight when asked meanwhile, and stops when told', async () => {
    const relisting = new Relisting(timers(new ManualClock()));
    expect(relisting.join()).toBeUndefined();
    let runs = 0;
    let release!: () => void;
    const first = relisting.start(async () => {
      runs++;
      if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
      return true;
    });
    expect(relisting.join()).toBe(first);
    release();
    await first;
    expect(runs).toBe(2);
    expect(relisting.join()).toBeUndefined();
    let stopped = 0;
    await relisting.start(async () => {
      stopped++;
      relisting.join();
      return false;
    });
    expect(stopped).toBe(1);
  });
});

describe('an attempt', () => {
  it('keeps the last 2000 characters of stderr and names its last line', () => {
    const tail = new StderrTail();
    expect(tail.lastLine()).toBe('');
    tail.add('x'.repeat(3000));
    expect(tail.text.length).toBe(2000);
    tail.add('\nstarting\nfatal: no config\n\n');
    expect(tail.lastLine()).toBe(': fatal: no config');
  });

  it('says how it ended: its exit, its last stderr line, or the limit it was stopped at', () => {
    expect(exitText(undefined)).toBe('exited');
    expect(exitText({ code: null, signal: 'SIGTERM' })).toBe('was killed by SIGTERM');
    const ended = attempt();
    ended.recent.add('boom\n');
    ended.exited({ code: 1, signal: null }, undefined);
    expect(ended.ending()).toBe('exited with code 1: boom');
    const limited = attempt();
    limited.exited({ code: null, signal: 'SIGXFSZ' }, { processes: 64, memoryMb: 512, fileSizeMb: 100 } as never);
    expect(limited.ending()).toMatch(/^was stopped by toolshed: /);
    expect(limited.running()).toBe(false);
  });
});

describe('why a connection failed', () => {
  it('words a handshake that timed out, exited or could not be started', () => {
    const timeout = new SdkError(SdkErrorCode.RequestTimeout, 'timed out');
    expect(handshakeFailure(attempt(), timeout, server)).toEqual({
      state: 'timed out',
      why: 'did not answer the handshake within 5000 ms (limits.loadTimeoutMs)',
    });
    expect(handshakeFailure(attempt(), new ListingTimeout(1000, 2, 3), server)).toMatchObject({ state: 'timed out' });
    const exited = attempt();
    exited.recent.add('cannot bind\n');
    exited.exit = { code: 2, signal: null };
    expect(handshakeFailure(exited, new Error('closed'), server)).toEqual({
      state: 'exited',
      why: 'exited with code 2 during the handshake: cannot bind',
    });
    const missing = Object.assign(new Error('spawn x ENOENT'), { code: 'ENOENT' });
    expect(handshakeFailure(attempt(), missing, server)).toEqual({
      state: 'handshake failed',
      why: 'could not be started: spawn x ENOENT',
    });
    expect(handshakeFailure(attempt(), new Error('bad'), server)).toEqual({
      state: 'handshake failed',
      why: 'failed its handshake: bad',
    });
  });

  it('takes a probe answered with an error for an answer, and a timeout for none', () => {
    expect(probeFailure(new Error('method not found'), 5000)).toBeUndefined();
    expect(probeFailure(new SdkError(SdkErrorCode.RequestTimeout, 'timed out'), 5000)).toEqual({
      text: 'is unreachable: it did not answer a probe within 5000 ms (limits.loadTimeoutMs)',
      reinitialize: false,
    });
    expect(errorText(new Error('plain'))).toBe('plain');
  });
});

describe('the era', () => {
  const stdio = { protocol: 'auto', stdio: { command: 'srv', args: [] }, startTimeoutMs: 20_000 } as never;

  it('probes a stdio server for at most 5 s, and falls back to 2025 once the probe killed it', () => {
    const era = new EraChoice(stdio);
    expect(era.negotiation()).toEqual({ versionNegotiation: { mode: 'auto', probe: { timeoutMs: 5000 } } });
    const killed = attempt();
    killed.exit = { code: 1, signal: null };
    const failed = new SdkError(SdkErrorCode.EraNegotiationFailed, 'no answer');
    expect(era.killedByProbe(killed, failed)).toBe(true);
    expect(era.killedByProbe(attempt(), failed)).toBe(false);
    era.fallBack();
    expect(era.negotiation()).toEqual({ versionNegotiation: { mode: 'legacy' } });
    expect(era.killedByProbe(killed, failed)).toBe(false);
  });

  it('pins 2026-07-28 when told, and never falls back over HTTP', () => {
    const pinned = new EraChoice({ protocol: '2026-07-28', startTimeoutMs: 5000 } as never);
    expect(pinned.negotiation()).toEqual({ versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const http = new EraChoice({ protocol: 'auto', startTimeoutMs: 8000 } as never);
    expect(http.negotiation()).toEqual({ versionNegotiation: { mode: 'auto', probe: { timeoutMs: 8000 } } });
    const killed = attempt();
    killed.exit = { code: 1, signal: null };
    expect(http.killedByProbe(killed, new SdkError(SdkErrorCode.EraNegotiationFailed, 'x'))).toBe(false);
  });
});

describe("an HTTP server's probes", () => {
  const http = { url: new URL('http://127.0.0.1:1/mcp'), headers: {}, probeIntervalMs: 1000 } as never;

  it('runs one probe at a time, within 1 to 1.5 probe intervals, until cancelled', () => {
    const clock = new ManualClock();
    const probes = new HttpProbes(http, 5000, timers(clock));
    let probed = 0;
    probes.schedule(() => probed++);
    probes.schedule(() => probed++);
    clock.advance(999);
    expect(probed).toBe(0);
    clock.advance(501);
    expect(probed).toBe(1);
    probes.schedule(() => probed++);
    probes.cancel();
    clock.advance(2000);
    expect(probed).toBe(1);
    probes.schedule(() => probed++);
    probes.close();
    clock.advance(2000);
    expect(probed).toBe(1);
  });

  it('takes an answer, even an error, for an answer; on 2026-07-28 it asks server/discover', async () => {
    const probes = new HttpProbes(http, 5000, timers(new ManualClock()));
    const legacy = { getProtocolEra: () => 'legacy', ping: async () => ({}) } as never;
    expect(await probes.ping(legacy)).toBeUndefined();
    const refusing = { getProtocolEra: () => 'legacy', ping: () => Promise.reject(new Error('no such method')) };
    expect(await probes.ping(refusing as never)).toBeUndefined();
    const silent = {
      getProtocolEra: () => 'modern',
      discover: () => Promise.reject(new SdkError(SdkErrorCode.RequestTimeout, 'timed out')),
    };
    expect(await probes.ping(silent as never)).toMatchObject({ reinitialize: false });
  });
});
