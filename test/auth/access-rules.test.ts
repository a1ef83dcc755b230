/**
 * Config `access`: `host.as(identity)` gives the view of the first rule that matches the
 * identity (by subject pattern, scopes, claims), with the rule's approval policy; with rules, an
 * identity none matches is refused with ACCESS_DENIED; without rules it gets the whole host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createToolHost,
  ToolshedError,
  type ApprovalRequest,
  type Identity,
  type McpTool,
  type ToolCall,
  type ToolHost,
} from 'toolshed';
import { fixtureOptions } from '../helpers.js';

const parse = (text: string) => JSON.parse(text) as { error: string; code: string };
const names = async (h: ToolHost) => ((await h.definitions({ format: 'mcp' })) as McpTool[]).map((d) => d.name).sort();
const who = (subject: string, extra: Partial<Identity> = {}): Identity => ({
  subject,
  scopes: [],
  claims: { sub: subject },
  ...extra,
});

const ACCESS = [
  { name: 'readers', when: { subject: ['carol', 'dave'] }, enable: ['read_note', 'list_notes'] },
  { name: 'admins', when: { subject: 'admin-*' }, enable: ['notes', 'notes-admin'] },
  {
    name: 'eng',
    when: { claims: { groups: 'eng' } },
    enable: ['notes'],
    disable: ['write_note'],
    approve: ['read_note'],
  },
  {
    name: 'writers',
    when: { scopes: ['notes:write'] },
    enable: ['notes'],
    approve: { destructive: true, timeoutMs: 2000 },
  },
  { name: 'summarizers', when: { subject: 'sam' }, enable: ['summarize_note'] },
];

let host: ToolHost;
const asked: ApprovalRequest[] = [];
const seen: ToolCall[] = [];

beforeAll(async () => {
  host = await createToolHost(
    fixtureOptions(['notes'], {
      config: { access: ACCESS },
      onApproval: (request) => {
        asked.push(request);
        return { approved: false, reason: 'not today' };
      },
    }),
  );
  host.use({ beforeCall: (call) => void seen.push(call) });
}, 60_000);
afterAll(() => host.close());

/** Runs `fn` with `host.as(identity)` and closes the view after. */
async function as<T>(identity: Identity, fn: (view: ToolHost) => Promise<T>): Promise<T> {
  const view = host.as(identity);
  try {
    return await fn(view);
  } finally {
    await view.close();
  }
}

describe('host.as(identity) under access rules', () => {
  it('matches a subject by * pattern, and a list of subjects', async () => {
    await as(who('admin-1'), async (view) => expect(await names(view)).toContain('delete_note'));
    await as(who('dave'), async (view) => expect(await names(view)).toEqual(['list_notes', 'read_note']));
  });

  it('matches a claim: an array claim matches when it contains the value', async () => {
    await as(who('erin', { claims: { sub: 'erin', groups: ['ops', 'eng'] } }), async (view) => {
      expect(await names(view)).toEqual(['fail_note', 'list_notes', 'read_note', 'summarize_note']);
    });
  });

  it('matches scopes: every scope the rule lists must be granted', async () => {
    await as(who('frank', { scopes: ['notes:read', 'notes:write'] }), async (view) =>
      expect(await names(view)).toContain('write_note'),
    );
    expect(() => host.as(who('frank', { scopes: ['notes:read'] }))).toThrow(ToolshedError);
  });

  it('lets the first rule that matches decide', async () => {
    // dave is in eng, but 'readers' comes first.
    await as(who('dave', { claims: { sub: 'dave', groups: ['eng'] } }), async (view) =>
      expect(await names(view)).toEqual(['list_notes', 'read_note']),
    );
    // admin-2 is in eng too: 'admins' comes first, so no write_note is taken away.
    await as(who('admin-2', { claims: { sub: 'admin-2', groups: ['eng'] } }), async (view) => {
      expect(await names(view)).toEqual(expect.arrayContaining(['delete_note', 'write_note']));
    });
  });

  it('refuses an identity no rule matches with ACCESS_DENIED, naming it and not the rules', () => {
    let error: unknown;
    try {
      host.as(who('mallory', { claims: { sub: 'mallory', groups: ['sales'] } }));
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ToolshedError);
    expect((error as ToolshedError).code).toBe('ACCESS_DENIED');
    expect((error as ToolshedError).message).toBe('mallory may not use this host: no access rule matches it');
  });

  it("hides what the rule leaves out, with the rule's name in the reason, and dispatch refuses it", async () => {
    await as(who('carol'), async (view) => {
      const outside = parse(await view.dispatch('delete_note', { id: 'a' }));
      expect(outside.code).toBe('TOOL_NOT_EXPOSED');
      expect(outside.error).toBe(
        "tool 'delete_note' is not available here: not in access rule 'readers' (enable: read_note, list_notes)",
      );
      expect(view.explain().tools.find((t) => t.name === 'write_note')).toMatchObject({
        exposed: false,
        reason: "not in access rule 'readers' (enable: read_note, list_notes)",
      });
      expect(await view.dispatch('read_note', { id: 'a' })).toBe('note a');
    });
    await as(who('erin', { claims: { sub: 'erin', groups: ['eng'] } }), async (view) => {
      expect(parse(await view.dispatch('write_note', { id: 'a', text: 't' })).error).toBe(
        "tool 'write_note' is not available here: disabled in access rule 'eng'",
      );
    });
  });

  it("refuses the nested calls its tools make to tools outside the rule's view", async () => {
    await as(who('sam'), async (view) => {
      const nested = parse(await view.dispatch('summarize_note', { id: 'a' }));
      expect(nested.code).toBe('TOOL_FAILED');
      expect(nested.error).toContain("not in access rule 'summarizers' (enable: summarize_note)");
    });
  });

  it('carries the identity on every call through the view, without its token', async () => {
    seen.length = 0;
    await as(who('dave', { token: 'secret-token-value' }), async (view) => {
      expect(await view.dispatch('read_note', { id: 'b' })).toBe('note b');
    });
    expect(seen[0]!.identity).toEqual({ subject: 'dave', scopes: [], claims: { sub: 'dave' } });
  });

  it("holds a call for approval under the rule's approve where the host's policy would not", async () => {
    asked.length = 0;
    expect(await host.dispatch('read_note', { id: 'a' })).toBe('note a');
    expect(asked).toHaveLength(0);
    await as(who('erin', { claims: { sub: 'erin', groups: ['eng'] } }), async (view) => {
      const held = parse(await view.dispatch('read_note', { id: 'a' }));
      expect(held).toEqual({ code: 'APPROVAL_DENIED', error: 'read_note was not approved: not today; it did not run' });
      expect(asked).toMatchObject([{ tool: 'read_note', reason: 'listed', identity: { subject: 'erin' } }]);
      expect(view.explain().tools.find((t) => t.name === 'read_note')!.approval).toBe('listed');
      // A tool the rule does not list runs without asking.
      expect(await view.dispatch('list_notes', {})).toBe('{"ids":["a","b","c"]}');
    });
    await as(who('frank', { scopes: ['notes:write'] }), async (view) => {
      // destructive: true, and write_note says destructiveHint: false; delete_note is outside the view.
      expect(await view.dispatch('write_note', { id: 'a', text: 'hi' })).toBe('{"saved":"a","chars":2}');
      expect(view.explain().tools.find((t) => t.name === 'write_note')!.approval).toBeUndefined();
    });
    expect(host.explain().tools.find((t) => t.name === 'read_note')!.approval).toBeUndefined();
  });

  it('refuses what is not an identity with a TypeError', () => {
    expect(() => host.as({ subject: '', scopes: [], claims: {} })).toThrow(
      'as(): identity.subject must be a non-empty string',
    );
    expect(() => host.as({ subject: 'dave', claims: {} } as never)).toThrow(
      'as(): identity.scopes must be an array of strings',
    );
    expect(() => host.as({ subject: 'dave', scopes: [] } as never)).toThrow('as(): identity.claims must be an object');
  });

  it('closing the view closes it, and leaves the host serving', async () => {
    const view = host.as(who('dave'));
    await view.close();
    expect(parse(await view.dispatch('read_note', { id: 'a' })).code).toBe('HOST_CLOSED');
    expect(await host.dispatch('read_note', { id: 'a' })).toBe('note a');
  });
});

describe('host.as(identity) without access rules', () => {
  it('gives every identity the whole host', async () => {
    const open = await createToolHost(fixtureOptions(['notes']));
    try {
      const view = open.as(who('anyone'));
      expect(await names(view)).toEqual(await names(open));
      await view.close();
    } finally {
      await open.close();
    }
  }, 60_000);
});
