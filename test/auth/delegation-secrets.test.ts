/**
 * A plugin's tools declare secrets of their caller (`secrets: ['SERVICE_TOKEN']`): for each call
 * made for an identity the host asks the embedder's credentials provider, and the handler finds
 * the answer in ctx.secrets for that call only, in the thread tier and in the process tier (an
 * untrusted plugin in its own child). Alice's call sees alice's, bob's bob's, a concurrent pair
 * never swaps, a tool that declares none and a check see none, and process.env never holds one.
 * No identity, or a secret the provider lacks, is CREDENTIALS_UNAVAILABLE before the handler
 * runs. The host env lacking the secret does not hide the tool; hooks and explain never show it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type CredentialRequest, type Identity, type ToolHost } from 'toolshed';
import { createTestContext } from 'toolshed/plugin';
import { fixture } from '../helpers.js';

const PLUGIN = fixture('plugins', 'caller-secrets');

/** What the provider holds: each person's secrets, by name. */
const VAULT: Record<string, Record<string, string>> = {
  alice: { SERVICE_TOKEN: 'alice-service-token-1a2b', SERVICE_PIN: 'alice-pin-7' },
  bob: { SERVICE_TOKEN: 'bob-service-token-3c4d' },
};
const reversed = (text: string) => [...text].reverse().join('');
const person = (subject: string): Identity => ({
  subject,
  scopes: [],
  claims: { sub: subject },
  token: `inbound-token-of-${subject}`,
});

const parsed = async (on: ToolHost, tool: string, args: unknown = {}) => {
  const outcome = await on.call(tool, args);
  if (!outcome.ok) throw new Error(`${outcome.code}: ${outcome.message}`);
  return JSON.parse(outcome.text) as Record<string, unknown>;
};

describe.each([
  ['thread', 'trusted'],
  ['process', 'untrusted'],
] as const)('secrets of the caller in the %s tier', (tier, trust) => {
  let host: ToolHost;
  const asked: CredentialRequest[] = [];

  beforeAll(async () => {
    host = await createToolHost({
      cwd: fixture(),
      // The host's env has no SERVICE_TOKEN: the tool is exposed all the same.
      env: { PATH: process.env.PATH },
      config: { builtins: false, cache: { enabled: false }, plugins: [{ package: PLUGIN, trust }] },
      credentials: (request) => {
        asked.push(request);
        return VAULT[request.identity.subject]?.[request.name];
      },
    });
  }, 60_000);

  afterAll(async () => {
    await host?.close();
  });

  it('exposes the tool without the secret in the host env, in its tier', { timeout: 60_000 }, async () => {
    const report = await host.refresh();
    expect(report.tools.find((tool) => tool.name === 'service_whoami')).toMatchObject({ exposed: true });
    expect(report.plugins.find((plugin) => plugin.name === 'toolshed-plugin-caller-secrets')?.tier).toBe(tier);
  });

  it("gives each call its caller's secret, for that call only", { timeout: 60_000 }, async () => {
    asked.length = 0;
    const alice = await parsed(host.as(person('alice')), 'service_whoami');
    expect(alice).toEqual({
      token: reversed(VAULT.alice!.SERVICE_TOKEN!),
      sameAfterWait: true,
      names: ['SERVICE_TOKEN'],
      frozen: true,
      inEnv: null,
    });
    expect((await parsed(host.as(person('bob')), 'service_whoami')).token).toBe(reversed(VAULT.bob!.SERVICE_TOKEN!));
    expect(asked.map(({ kind, name, plugin, identity }) => [kind, name, plugin, identity.subject])).toEqual([
      ['secret', 'SERVICE_TOKEN', 'toolshed-plugin-caller-secrets', 'alice'],
      ['secret', 'SERVICE_TOKEN', 'toolshed-plugin-caller-secrets', 'bob'],
    ]);
    // A tool that declares none sees none, in the same workers, right after.
    expect(await parsed(host.as(person('alice')), 'service_peek')).toEqual({ names: [] });
    expect(await parsed(host.as(person('alice')), 'service_two')).toEqual({ names: ['SERVICE_PIN', 'SERVICE_TOKEN'] });
  });

  it('never swaps the secrets of concurrent callers', { timeout: 60_000 }, async () => {
    const people = ['alice', 'bob', 'alice', 'bob', 'bob', 'alice'];
    const results = await Promise.all(
      people.map((who, i) => parsed(host.as(person(who)), 'service_whoami', { waitMs: 50 + 20 * (i % 3) })),
    );
    expect(results.map((result) => result.token)).toEqual(people.map((who) => reversed(VAULT[who]!.SERVICE_TOKEN!)));
    expect(results.every((result) => result.sameAfterWait === true)).toBe(true);
  });

  it('refuses a call for no identity, or a secret the provider lacks, before the handler runs', {
    timeout: 60_000,
  }, async () => {
    expect(await host.call('service_whoami', {})).toEqual({
      ok: false,
      code: 'CREDENTIALS_UNAVAILABLE',
      message:
        "service_whoami acts for its caller (it needs the caller's SERVICE_TOKEN), and this call is made for no identity",
    });
    expect(await host.as(person('carol')).call('service_whoami', {})).toEqual({
      ok: false,
      code: 'CREDENTIALS_UNAVAILABLE',
      message:
        'service_whoami could not run: the credentials provider gave no secret SERVICE_TOKEN (plugin toolshed-plugin-caller-secrets) (asked for carol)',
    });
    // Bob has a token but no PIN: one missing secret refuses the call.
    expect(await host.as(person('bob')).call('service_two', {})).toMatchObject({
      ok: false,
      code: 'CREDENTIALS_UNAVAILABLE',
    });
  });

  it('shows no secret to hooks or explain', { timeout: 60_000 }, async () => {
    const seen: unknown[] = [];
    const off = host.use({
      beforeCall: (call) => void seen.push(call),
      afterCall: (call, outcome) => void seen.push(call, outcome),
    });
    try {
      await parsed(host.as(person('alice')), 'service_whoami');
      await parsed(host.as(person('bob')), 'service_whoami');
    } finally {
      off();
    }
    expect(seen.length).toBe(6);
    const visible = JSON.stringify([seen, host.explain(), await host.refresh()]);
    expect(visible).toContain('SERVICE_TOKEN');
    for (const secrets of Object.values(VAULT))
      for (const value of Object.values(secrets)) expect(visible).not.toContain(value);
    expect(visible).not.toContain('inbound-token-of-');
  });
});

describe('a host without a credentials provider', () => {
  it('refuses calls of a tool that declares secrets, saying so', { timeout: 60_000 }, async () => {
    const host = await createToolHost({
      cwd: fixture(),
      env: { PATH: process.env.PATH },
      config: { builtins: false, cache: { enabled: false }, plugins: [{ package: PLUGIN, trust: 'trusted' }] },
    });
    try {
      const outcome = await host.as(person('alice')).call('service_whoami', {});
      expect(outcome).toMatchObject({ ok: false, code: 'CREDENTIALS_UNAVAILABLE' });
      expect(!outcome.ok && outcome.message).toMatch(/has no credentials provider/);
    } finally {
      await host.close();
    }
  });
});

describe('createTestContext', () => {
  it('gives a handler the secrets a test sets, frozen, and none by default', async () => {
    const { default: plugin } = (await import(`${PLUGIN}/index.js`)) as {
      default: { tools: Array<{ name: string; handler: (args: unknown, ctx: unknown) => unknown }> };
    };
    const whoami = plugin.tools.find((tool) => tool.name === 'service_whoami')!;
    const ctx = createTestContext({ secrets: { SERVICE_TOKEN: 'abc' } });
    expect(await whoami.handler({}, ctx)).toEqual({
      token: 'cba',
      sameAfterWait: true,
      names: ['SERVICE_TOKEN'],
      frozen: true,
      inEnv: null,
    });
    expect(createTestContext().secrets).toEqual({});
  });
});
