/**
 * A server that exits, fails its start or never answers: its tools hide with the reason, and come back after a restart.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers.js';
import { DYNAMIC, FileHosts, server, serverScript, until } from './setup.js';

const hosts = new FileHosts();
afterEach(() => hosts.release());
afterAll(() => hosts.closeAll());

const open = hosts.open.bind(hosts);

/**
 * One host of the fixture server, its restarts on a clock the tests move, for the tests that stop it and wait for it
 * back.
 */
const dynamicHosts = new FileHosts();
afterAll(() => dynamicHosts.closeAll());
const dynamic = dynamicHosts.dynamicOnce();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a server that goes away', () => {
  it('hides its tools with the reason when killed, and shows them again once restarted; stops every server process when the host closes', async () => {
    // The restart waits on this clock.
    const clock = new ManualClock();
    const host = await open({ everything: { command: 'node', args: [serverScript('everything')] } }, { clock });
    const changes: number[] = [];
    host.on('change', (generation) => changes.push(generation));
    const before = server(await host.refresh(), 'everything');
    expect(before).toMatchObject({ state: 'connected', restarts: 0 });
    process.kill(before.pid!, 'SIGKILL');

    const down = await until(
      host,
      (r) => r.tools.find((t) => t.name === 'get-sum')?.exposed === false,
      'get-sum hidden',
    );
    const reason = down.tools.find((t) => t.name === 'get-sum')!;
    expect(reason).toMatchObject({ layer: 'availability', availability: { kind: 'connection' } });
    expect(reason.reason).toMatch(/^the MCP server everything was killed by SIGKILL; restarting in 500 ms$/);
    expect(changes.length).toBeGreaterThan(0);

    clock.advance(500);
    const up = await until(host, (r) => r.tools.find((t) => t.name === 'get-sum')?.exposed === true, 'get-sum back');
    expect(server(up, 'everything')).toMatchObject({ state: 'connected', restarts: 1 });
    const { pid } = server(up, 'everything');
    expect(pid).not.toBe(before.pid);
    expect(await host.dispatch('get-sum', { a: 40, b: 2 })).toBe('The sum of 40 and 2 is 42.');

    // Closed here, not in teardown (which then finds it closed): its close ends the restarted process too.
    expect(alive(pid!)).toBe(true);
    await host.close();
    expect(alive(pid!)).toBe(false);
  });

  it('reports the exit code of a server that exits on its own', async () => {
    const { host, clock } = await dynamic();
    expect(await host.dispatch('exit', { code: 3 })).toBe('exiting with 3');
    const down = await until(host, (r) => server(r, 'dynamic').state === 'exited', 'the exit');
    expect(server(down, 'dynamic').reason).toBe('the MCP server dynamic exited with code 3; restarting in 500 ms');
    expect(await host.call('stats', {})).toMatchObject({
      ok: false,
      code: 'TOOL_NOT_EXPOSED',
      message: expect.stringContaining('exited with code 3'),
    });
    clock.advance(500);
    await until(host, (r) => server(r, 'dynamic').state === 'connected', 'the restart');
    expect(JSON.parse(await host.dispatch('stats', {}))).toEqual({ cancelled: 0, calls: 0 });
  });

  it('fails a call that is running when the server dies with TOOL_CRASHED and the reason', async () => {
    // The server the test above restarted.
    const { host } = await dynamic();
    expect(server(host.explain(), 'dynamic').state).toBe('connected');
    let reached!: () => void;
    const upstream = new Promise<void>((resolve) => (reached = resolve));
    // The fixture reports progress once the call is running inside it.
    const pending = host.call('slow', {}, { onProgress: () => reached() });
    await upstream;
    process.kill(server(host.explain(), 'dynamic').pid!, 'SIGKILL');
    const outcome = await pending;
    expect(outcome).toMatchObject({ ok: false, code: 'TOOL_CRASHED' });
    expect(outcome.ok === false && outcome.message).toContain('the MCP server dynamic was killed by SIGKILL');
  });
});

describe('a server that does not start', () => {
  it('says it exited during the handshake, with its last stderr line, and backs off between restarts', async () => {
    const clock = new ManualClock();
    const host = await open({ broken: { command: 'node', args: [DYNAMIC, 'exit', '7'] } }, { clock });
    const first = server(host.explain(), 'broken');
    expect(first.state).toBe('exited');
    expect(first.reason).toBe(
      'the MCP server broken exited with code 7 during the handshake: dynamic-mcp: refusing to start (asked to); restarting in 500 ms',
    );
    expect(first.stderr).toContain('refusing to start');
    clock.advance(500);
    const second = await until(
      host,
      (r) => server(r, 'broken').restarts === 1 && server(r, 'broken').state === 'exited',
      'the second failure',
    );
    expect(server(second, 'broken').reason).toMatch(/restarting in 1 s$/);
  });

  it('says the handshake timed out after limits.loadTimeoutMs', async () => {
    const host = await open(
      { silent: { command: 'node', args: [DYNAMIC, 'hang'] } },
      { config: { limits: { loadTimeoutMs: 300 } } },
    );
    expect(server(host.explain(), 'silent')).toMatchObject({
      state: 'timed out',
      reason:
        'the MCP server silent did not answer the handshake within 300 ms (limits.loadTimeoutMs); restarting in 500 ms',
    });
  });

  it('says its handshake failed, with the error it answered', async () => {
    const host = await open({ refusing: { command: 'node', args: [DYNAMIC, 'refuse'] } });
    expect(server(host.explain(), 'refusing')).toMatchObject({
      state: 'handshake failed',
      reason:
        'the MCP server refusing failed its handshake: MCP error -32603: this server is out of order; restarting in 500 ms',
    });
    expect(host.explain().toolsets.find((t) => t.name === 'mcp-refusing')).toMatchObject({ tools: 0 });
  });

  it('says when its command cannot be run', async () => {
    const host = await open({ missing: { command: 'toolshed-no-such-mcp-server' } });
    const report = server(host.explain(), 'missing');
    expect(report.state).toMatch(/exited|handshake failed/);
    expect(report.reason).toMatch(/toolshed-no-such-mcp-server.*(ENOENT|No such file)/);
  });
});
