import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type McpTool, type ToolHost } from 'toolshed';
import { fixtureOptions, ManualClock, tempDir } from '../helpers.js';

let host: ToolHost;

beforeAll(async () => {
  host = await createToolHost(fixtureOptions(['notes']));
});
afterAll(() => host.close());

const parse = (text: string) => JSON.parse(text) as { error: string; code: string };
const names = async (h: ToolHost) => ((await h.definitions({ format: 'mcp' })) as McpTool[]).map((d) => d.name);
const pool = (h: ToolHost) => h.explain().plugins.find((p) => p.name === 'toolshed-plugin-notes')!.pool!;

describe('a view', () => {
  it('exposes its own selection, with descriptions corrected for what it exposes', async () => {
    const view = host.view({ enable: ['notes'], disable: ['write_note'] });
    try {
      expect(await names(view)).toEqual(['fail_note', 'list_notes', 'read_note', 'summarize_note']);
      const list = (defs: McpTool[]) => defs.find((d) => d.name === 'list_notes')!.description;
      // The host exposes delete_note, the view does not: each description names only what its own model can call.
      expect(list(await host.definitions({ format: 'mcp' }))).toBe(
        'Lists note ids. Read one with read_note. Remove one with delete_note.',
      );
      expect(list(await view.definitions({ format: 'mcp' }))).toBe('Lists note ids. Read one with read_note.');
    } finally {
      await view.close();
    }
  });

  it('starts no worker and runs no check: it reuses the host pools and check cache', async () => {
    await host.definitions();
    const before = pool(host);
    const view = host.view({ enable: ['notes-admin'] });
    try {
      expect(await names(view)).toEqual(['delete_note', 'sync_notes']);
      expect(pool(view)).toEqual(before);
      expect(await view.dispatch('sync_notes', {})).toBe('synced');
      // The call ran in the host's pool: the same pool counts it.
      expect(pool(host).completed).toBe(before.completed + 1);
      expect(pool(host).threads).toBe(before.threads);
    } finally {
      await view.close();
    }
  });

  it('memoizes its definitions on its own', async () => {
    const view = host.view({ enable: ['notes'] });
    try {
      const first = await view.definitions({ format: 'anthropic' });
      expect(await view.definitions({ format: 'anthropic' })).toBe(first);
      expect(await host.definitions({ format: 'anthropic' })).not.toBe(first);
    } finally {
      await view.close();
    }
  });

  it('refuses tools outside it with TOOL_NOT_EXPOSED and says why', async () => {
    const view = host.view({ enable: ['notes'], disable: ['write_note'] });
    try {
      const outside = parse(await view.dispatch('delete_note', { id: 'a' }));
      expect(outside.code).toBe('TOOL_NOT_EXPOSED');
      expect(outside.error).toBe("tool 'delete_note' is not available here: not in this view (enable: notes)");
      expect(parse(await view.dispatch('write_note', { id: 'a', text: 't' })).error).toContain('disabled in this view');
      // The host itself still serves both.
      expect(await host.dispatch('delete_note', { id: 'a' })).toBe('deleted a');
    } finally {
      await view.close();
    }
  });

  it("routes a tool's nested ctx.callTool through the view too", async () => {
    const view = host.view({ enable: ['notes'], disable: ['read_note'] });
    try {
      const out = parse(await view.dispatch('summarize_note', { id: 'a' }));
      expect(out.code).toBe('TOOL_FAILED');
      expect(out.error).toContain('disabled in this view');
      expect(await host.dispatch('summarize_note', { id: 'a' })).toBe('summary of: note a');
    } finally {
      await view.close();
    }
  });

  it('accepts single tools in enable, and nests: a view of a view narrows further', async () => {
    const readers = host.view({ enable: ['read_note', 'list_notes', 'delete_note'] });
    const inner = readers.view({ disable: ['delete_note'] });
    try {
      expect(await names(readers)).toEqual(['delete_note', 'list_notes', 'read_note']);
      expect(await names(inner)).toEqual(['list_notes', 'read_note']);
      // Enabling a toolset the parent does not expose adds nothing.
      const widened = readers.view({ enable: ['notes'] });
      expect(await names(widened)).toEqual(['list_notes', 'read_note']);
      await widened.close();
    } finally {
      await inner.close();
      await readers.close();
    }
  });

  it('cannot widen what the operator disabled', async () => {
    const limited = await createToolHost(fixtureOptions(['notes'], { config: { disable: ['delete_note'] } }));
    try {
      const view = limited.view({ enable: ['notes-admin'] });
      expect(await names(view)).toEqual(['sync_notes']);
      expect(parse(await view.dispatch('delete_note', { id: 'a' })).error).toContain('disabled by config');
    } finally {
      await limited.close();
    }
  });

  it('throws TOOLSET_UNKNOWN with a did-you-mean for a name that is neither a toolset nor a tool', () => {
    expect(() => host.view({ enable: ['ntoes'] })).toThrow(
      expect.objectContaining({ code: 'TOOLSET_UNKNOWN', message: expect.stringContaining("Did you mean 'notes'") }),
    );
    expect(() => host.view({ disable: ['raed_note'] })).toThrow(expect.objectContaining({ code: 'TOOLSET_UNKNOWN' }));
  });

  it("runs the host's hooks and its own; its own do not apply to the host", async () => {
    const view = host.view({ enable: ['notes'] });
    const seen: string[] = [];
    const stopHost = host.use({ beforeCall: (call) => void seen.push(`host:${call.tool}`) });
    view.use({ beforeCall: (call) => void seen.push(`view:${call.tool}`) });
    try {
      await view.dispatch('read_note', { id: 'a' });
      await host.dispatch('read_note', { id: 'b' });
    } finally {
      stopHost();
      await view.close();
    }
    expect(seen).toEqual(['host:read_note', 'view:read_note', 'host:read_note']);
  });

  it('refuses calls once closed, while the host keeps serving', async () => {
    const view = host.view({ enable: ['notes'] });
    await view.close();
    expect(parse(await view.dispatch('read_note', { id: 'a' })).code).toBe('HOST_CLOSED');
    expect(await host.dispatch('read_note', { id: 'a' })).toBe('note a');
  });
});

describe('a view following its host', () => {
  it("emits change when a check flip changes the view's own exposed set", async () => {
    const work = tempDir();
    const clock = new ManualClock();
    const probeHost = await createToolHost(
      fixtureOptions(['probe'], {
        cwd: work.dir,
        clock,
        config: { checks: { ttlMs: 1000, graceMs: 0 }, enable: ['probe'] },
      }),
    );
    try {
      const mine = probeHost.view({ enable: ['own_check', 'mentions_own'] });
      const other = probeHost.view({ enable: ['mentions_own'] });
      expect(await names(mine)).toEqual(['mentions_own', 'own_check']);
      await names(other);
      const changes: string[] = [];
      const mineChanged = new Promise<void>((resolve) =>
        mine.on('change', () => {
          changes.push('mine');
          resolve();
        }),
      );
      other.on('change', () => changes.push('other'));
      writeFileSync(path.join(work.dir, 'own.mode'), 'false');
      clock.advance(1500);
      await probeHost.refresh();
      await mineChanged;
      // The other view recomputed too (same in-flight computation); its set did not move, so it stayed quiet.
      await names(other);
      expect(changes).toEqual(['mine']);
      expect(await names(mine)).toEqual(['mentions_own']);
    } finally {
      await probeHost.close();
      work.cleanup();
    }
  });
});

describe("a view's defer", () => {
  it('defers its own tools: they leave its list for tool_search, and a search loads them for that session', async () => {
    const view = host.view({ enable: ['notes', 'notes-admin'], defer: ['notes-admin'] });
    try {
      expect(await names(view)).toEqual([
        'fail_note',
        'list_notes',
        'read_note',
        'summarize_note',
        'tool_search',
        'write_note',
      ]);
      // The host defers nothing: its list is unchanged.
      expect(await names(host)).toContain('delete_note');
      expect(await names(host)).not.toContain('tool_search');
      const found = JSON.parse(
        await view.dispatch('tool_search', { query: 'delete a note' }, { sessionId: 'agent-2' }),
      ) as { tools: Array<{ name: string }> };
      expect(found.tools.map((t) => t.name)).toContain('delete_note');
      const loaded = ((await view.definitions({ format: 'mcp', sessionId: 'agent-2' })) as McpTool[]).map(
        (d) => d.name,
      );
      expect(loaded).toContain('delete_note');
      expect(await names(view)).not.toContain('delete_note');
      // Deferring is not a filter: the tool is callable through the view all along.
      expect(await view.dispatch('delete_note', { id: 'a' })).toBe('deleted a');
    } finally {
      await view.close();
    }
  });

  it("inherits its parent's defer unless it sets its own, and checks exact names", async () => {
    const deferring = await createToolHost(fixtureOptions(['notes'], { config: { defer: ['notes-admin'] } }));
    try {
      expect(await names(deferring.view({ enable: ['notes', 'notes-admin'] }))).not.toContain('delete_note');
      expect(await names(deferring.view({ defer: [] }))).toContain('delete_note');
      expect(() => deferring.view({ defer: ['delete_notes'] })).toThrow(
        expect.objectContaining({ code: 'TOOLSET_UNKNOWN' }),
      );
    } finally {
      await deferring.close();
    }
  });
});
