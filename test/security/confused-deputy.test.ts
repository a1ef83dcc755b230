/**
 * The confused deputy: an untrusted plugin granted nothing must not reach,
 * through ctx.callTool, what its callers can — the host's builtins (files,
 * shell, network, execute_code) or another plugin's tools. The operator
 * grants tools one by one (`grant.callTools`); every untrusted plugin in a
 * call chain is checked at every hop, so a tool it may call (a relay,
 * execute_code) reaches on its behalf only what it may reach itself. Chains
 * are bounded (limits.maxCallDepth), and a call back into a plugin whose
 * workers are all busy is refused at once instead of waiting for itself.
 * Real child processes, real builtins.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixture, tempDir, withHost } from '../helpers.js';
import { call } from './helpers.js';

const DEPUTY = fixture('security', 'deputy');
const RELAY = fixture('security', 'relay');

const work = tempDir('toolshed-deputy-');
const SECRET = path.join(work.dir, 'secret.txt');
writeFileSync(SECRET, 'host secret\n');
afterAll(() => work.cleanup());

/**
 * A host with the builtins, the untrusted deputy (granted `callTools`) and the trusted relay.
 * The manifest cache is on, as for users (the suite's own cache folder): the first host extracts
 * the manifests, the others read them, so each host starts without a child or worker per plugin
 * only to learn its tools. Grants, trust and effective permissions are decided per host all the same.
 */
function options(callTools: string[] | undefined, extra: Record<string, unknown> = {}) {
  return {
    cwd: work.dir,
    env: { PATH: process.env.PATH },
    config: {
      cache: { enabled: true },
      plugins: [
        { package: DEPUTY, trust: 'untrusted' as const, ...(callTools ? { grant: { callTools } } : {}) },
        { package: RELAY, trust: 'trusted' as const },
      ],
      ...extra,
    },
  };
}

describe('an untrusted plugin with no callTools grant', () => {
  let host: ToolHost;
  beforeAll(async () => {
    host = await createToolHost(options(undefined));
  });
  afterAll(() => host.close());

  it('reaches none of the builtins nor another plugin through ctx.callTool, and the refusal names the grant', async () => {
    const out = await call(host, 'deputy_sweep', { file: SECRET });
    for (const tool of ['read_file', 'write_file', 'terminal', 'web_fetch', 'execute_code', 'echo_other']) {
      expect(out[tool], tool).toMatchObject({ ok: false, code: 'PERMISSION_DENIED' });
      expect(out[tool].message, tool).toContain(`untrusted plugin toolshed-plugin-deputy may not call ${tool}`);
      expect(out[tool].message, tool).toContain(`add callTools: ['${tool}'] to the grant of toolshed-plugin-deputy`);
    }
    expect(existsSync(`${SECRET}.deputy`)).toBe(false);
  });

  it('still calls its own tools (they run with its own permissions)', async () => {
    expect(await call(host, 'deputy_own')).toEqual({ ok: true, value: { echo: 'mine' } });
  });

  it('a trusted caller keeps reaching every exposed tool', async () => {
    const out = await call(host, 'relay_call', { name: 'read_file', args: { path: SECRET } });
    expect(out.ok).toBe(true);
    expect(JSON.stringify(out)).toContain('host secret');
  });

  it('explain shows callTools requested, granted (none) and effective (none)', () => {
    const plugin = host.explain().plugins.find((p) => p.name === 'toolshed-plugin-deputy')!;
    expect(plugin.permissions!.requested.callTools).toEqual(['echo_other', 'execute_code', 'file', 'relay_call']);
    expect(plugin.permissions!.granted.callTools).toEqual([]);
    expect(plugin.permissions!.effective.callTools).toEqual([]);
  });
});

describe('callTools grants', () => {
  it('a granted tool runs; what it calls is checked for the untrusted plugin too (every hop)', async () => {
    await withHost(options(['relay_call']), async (host) => {
      const out = await call(host, 'deputy_call', {
        name: 'relay_call',
        args: { name: 'read_file', args: { path: SECRET } },
      });
      // The relay ran (granted), but its own call to read_file was refused on the deputy's behalf.
      expect(out.ok).toBe(true);
      expect(out.value).toMatchObject({ ok: false, code: 'PERMISSION_DENIED' });
      expect(out.value.message).toContain('read_file was called on behalf of untrusted plugin toolshed-plugin-deputy');
      expect(out.value.message).toContain(
        'call chain: deputy_call (toolshed-plugin-deputy) → relay_call (toolshed-plugin-relay) → read_file',
      );
      // Back into the deputy's own tools is fine.
      const own = await call(host, 'deputy_call', {
        name: 'relay_call',
        args: { name: 'deputy_echo', args: { text: 'loop' } },
      });
      expect(own).toEqual({ ok: true, value: { ok: true, value: { echo: 'loop' } } });
    });
  });

  it('execute_code called by an untrusted plugin reaches only what that plugin may call', async () => {
    // The operator lets scripts call read_file and echo_other; the deputy may call only echo_other.
    await withHost(
      options(['execute_code', 'echo_other'], { codeExecution: { tools: ['read_file', 'echo_other'] } }),
      async (host) => {
        const code = `const names = Object.keys(tools).sort();
let read; try { read = await tools.read_file({ path: ${JSON.stringify(SECRET)} }); } catch (e) { read = String(e.message ?? e); }
const other = await tools.echo_other({ text: 'ok' });
return { names, read: String(JSON.stringify(read)).slice(0, 300), other };`;
        const out = await call(host, 'deputy_call', { name: 'execute_code', args: { code } });
        expect(out.ok).toBe(true);
        const text = JSON.stringify(out.value);
        expect(text).not.toContain('host secret');
        expect(out.value.result.names).toEqual(['echo_other']);
        expect(out.value.result.other).toEqual({ other: 'ok' });
        // Called by the model, the same script sees both.
        const direct = await call(host, 'execute_code', { code: 'return Object.keys(tools).sort()' });
        expect(direct.result).toEqual(['echo_other', 'read_file']);
      },
    );
  });

  it('a toolset name grants its tools, and explain shows requested, granted and effective', async () => {
    await withHost(options(['file']), async (host) => {
      const out = await call(host, 'deputy_call', { name: 'read_file', args: { path: SECRET } });
      expect(JSON.stringify(out)).toContain('host secret');
      const plugin = host.explain().plugins.find((p) => p.name === 'toolshed-plugin-deputy')!;
      expect(plugin.permissions).toMatchObject({
        granted: { callTools: ['file'] },
        effective: { callTools: ['file'] },
      });
      // Granted but not in the toolset: still refused.
      expect(await call(host, 'deputy_call', { name: 'terminal', args: { command: 'id' } })).toMatchObject({
        ok: false,
        code: 'PERMISSION_DENIED',
      });
    });
  });

  it('a grant the plugin did not request gives nothing (the effective set is the intersection), and the refusal says so', async () => {
    await withHost(options(['terminal']), async (host) => {
      const out = await call(host, 'deputy_call', { name: 'terminal', args: { command: 'id' } });
      expect(out).toMatchObject({ ok: false, code: 'PERMISSION_DENIED' });
      expect(out.message).toContain('toolshed-plugin-deputy must request it in its permissions.callTools');
      expect(
        host.explain().plugins.find((p) => p.name === 'toolshed-plugin-deputy')!.permissions!.effective.callTools,
      ).toEqual([]);
    });
  });

  it('an unknown name in a callTools grant is CONFIG_INVALID with a did-you-mean, like enable', async () => {
    const error = await createToolHost(options(['read_fil'])).then(
      async (host) => {
        await host.close();
        return undefined;
      },
      (e: unknown) => e as { code?: string; message?: string; data?: { pointer?: string } },
    );
    expect(error?.code).toBe('CONFIG_INVALID');
    expect(error?.message).toContain("unknown tool or toolset 'read_fil' in the callTools grant");
    expect(error?.message).toContain("Did you mean 'read_file'");
    expect(error?.data?.pointer).toBe('/plugins/0/grant/callTools/0');
  });
});

/** The innermost outcome of a chain of `through` results. */
function innermost(out: any): any {
  while (out?.ok === true && out.value?.ok !== undefined) out = out.value;
  return out?.ok === true ? out.value : out;
}

describe('call chains: depth and calls back into a busy plugin', () => {
  it('a chain deeper than limits.maxCallDepth is refused with CALL_DEPTH_EXCEEDED', async () => {
    await withHost(options(undefined, { builtins: false, limits: { maxCallDepth: 2, threads: 4 } }), async (host) => {
      const deepest = innermost(await call(host, 'recurse', { n: 10 }));
      expect(deepest).toMatchObject({ ok: false, code: 'CALL_DEPTH_EXCEEDED' });
      expect(deepest.message).toContain('limited to a depth of 2 (limits.maxCallDepth)');
      expect(innermost(await call(host, 'recurse', { n: 2 }))).toEqual({ bottom: true });
    });
  });

  it('an untrusted plugin calling itself while its call waits gets the answer: the child runs both on its one thread', async () => {
    // Its child interleaves every call at each await, so a call waiting on a nested one holds nothing
    // the nested one needs (no CALL_WOULD_DEADLOCK, and no wait until the timeout).
    await withHost(options(undefined, { builtins: false, limits: { threads: 1 } }), async (host) => {
      expect(await call(host, 'deputy_self_busy')).toEqual({ ok: true, value: { echo: 'again' } });
      expect(host.explain().plugins.find((p) => p.name === 'toolshed-plugin-deputy')?.pool?.threads).toBe(1);
    });
  });

  it('two calls that each call back into their untrusted plugin both complete', async () => {
    await withHost(options(undefined, { builtins: false, limits: { threads: 2 } }), async (host) => {
      const outs = await Promise.all([call(host, 'deputy_self_later'), call(host, 'deputy_self_later')]);
      expect(outs).toEqual([
        { ok: true, value: { echo: 'later' } },
        { ok: true, value: { echo: 'later' } },
      ]);
    });
  });

  it('a trusted plugin calling itself with its only worker busy gets its own worker: the call runs inline there', async () => {
    // The thread tier runs a nested call into the caller's pool in the caller's worker, so it needs no free one.
    await withHost(options(undefined, { builtins: false, limits: { threads: 1 } }), async (host) => {
      expect(innermost(await call(host, 'recurse', { n: 3 }))).toEqual({ bottom: true });
      expect(host.explain().plugins.find((p) => p.name === 'toolshed-plugin-relay')?.pool?.threads).toBe(1);
    });
  });
});

// The secret file is never modified by anything above.
afterAll(() => {
  expect(readFileSync(SECRET, 'utf8')).toBe('host secret\n');
});
