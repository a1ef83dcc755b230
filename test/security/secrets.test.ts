/**
 * Case 5 and the env grant: the host's secrets stay in the host. An untrusted
 * plugin's process starts with an empty environment and receives only the
 * granted variables it requested; /proc/self/environ and the parent's are
 * unreadable; manifest extraction already runs sandboxed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixture, withHost } from '../helpers.js';
import { ATTACKER, call, expectHealthy, untrustedOptions } from './helpers.js';

const SECRET = 'sk-host-secret-0f1e2d3c';

describe('case 5: host secrets', () => {
  let host: ToolHost;
  let saved: string | undefined;
  beforeAll(async () => {
    saved = process.env.TOOLSHED_TEST_SECRET;
    process.env.TOOLSHED_TEST_SECRET = SECRET;
    // The cache off: a test below checks the manifest extraction itself (the file's only host of the attacker).
    host = await createToolHost(
      untrustedOptions([{ package: ATTACKER, grant: { env: ['TOOLSHED_TEST_SECRET'] } }], {
        env: { PATH: process.env.PATH, TOOLSHED_TEST_SECRET: SECRET },
        config: { cache: { enabled: false } },
      }),
    );
  });
  afterAll(async () => {
    await host.close();
    if (saved === undefined) delete process.env.TOOLSHED_TEST_SECRET;
    else process.env.TOOLSHED_TEST_SECRET = saved;
  });

  it('sees an empty process.env and ctx.env (granted but not requested is not given)', async () => {
    expect(host.explain().plugins[0]!.permissions).toMatchObject({
      requested: { env: [] },
      granted: { env: ['TOOLSHED_TEST_SECRET'] },
      effective: { env: [] },
    });
    const out = await call(host, 'steal_env');
    expect(out.processEnv).toEqual({});
    expect(out.ctxEnv).toEqual({});
    expect(JSON.stringify(out)).not.toContain(SECRET);
    await expectHealthy(host);
  });

  it('cannot read /proc/self/environ, the parent environ or pid 1 environ', async () => {
    const out = await call(host, 'steal_env');
    for (const where of ['environ', 'parentEnviron', 'hostEnviron'])
      expect(out[where], where).toMatchObject({ allowed: false, code: 'ERR_ACCESS_DENIED' });
    expect(JSON.stringify(out)).not.toContain(SECRET);
  });

  it('extracts the manifest inside the sandbox: import-time code already has no files and no env', async () => {
    const [definition] = (await host.definitions({ format: 'mcp' })).filter(
      (d) => (d as { name: string }).name === 'ping',
    ) as Array<{ description: string }>;
    expect(definition!.description).toContain('Import-time probe: passwd denied, env 0.');
    expect(host.explain().plugins[0]).toMatchObject({ tier: 'process', manifestSource: 'extracted' });
  });
});

describe('env grants', () => {
  const env = { PATH: process.env.PATH, NEEDS_KEY: 'needs-value', OTHER_KEY: 'other-value', UNRELATED: 'unrelated' };

  it('hides a tool whose required variable is not granted, with the reason, instead of failing at call time', async () => {
    await withHost(untrustedOptions([{ package: fixture('security', 'needs') }], { env }), async (host) => {
      const state = host.explain().tools.find((t) => t.name === 'needs_key')!;
      expect(state.exposed).toBe(false);
      expect(state.reason).toBe('environment variable NEEDS_KEY not granted to untrusted plugin toolshed-plugin-needs');
      expect(state.availability?.kind).toBe('permissions');
      expect(host.explain().tools.find((t) => t.name === 'needs_ping')!.exposed).toBe(true);
      expect(await call(host, 'needs_key')).toMatchObject({ code: 'TOOL_NOT_EXPOSED' });
    });
  });

  it('passes exactly the granted, requested variables', async () => {
    await withHost(
      untrustedOptions([{ package: fixture('security', 'needs'), grant: { env: ['NEEDS_KEY', 'UNRELATED'] } }], {
        env,
      }),
      async (host) => {
        expect(host.explain().plugins[0]!.permissions?.effective.env).toEqual(['NEEDS_KEY']);
        const out = await call(host, 'needs_key');
        expect(out.ctxEnv).toEqual({ NEEDS_KEY: 'needs-value' });
        expect(out.processEnv).toEqual({ NEEDS_KEY: 'needs-value' });
      },
    );
  });
});
