/**
 * `serve --watch` swaps the whole host on reload; hooks added with use() and
 * views made with view() on the reloading host must move to the new host.
 */
import { describe, expect, it } from 'vitest';
import { createToolHost, type CallRecord, type McpTool } from 'toolshed';
import { inspectorOf } from '#internal/core/host/inspector.js';
import { createReloadingHost } from '#internal/core/host/reloading-host.js';
import { fixtureOptions } from '../helpers.js';

const names = async (h: { definitions(o: { format: 'mcp' }): Promise<McpTool[]> }) =>
  (await h.definitions({ format: 'mcp' })).map((d) => d.name);

describe('a reloading host', () => {
  it('keeps its hooks and views across a reload, and closes the old host', async () => {
    const first = await createToolHost(fixtureOptions(['notes']));
    const second = await createToolHost(fixtureOptions(['notes'], { config: { disable: ['list_notes'] } }));
    const host = createReloadingHost(first, async () => second);
    try {
      const blocked: string[] = [];
      host.use({
        beforeCall: (call) => (call.tool === 'delete_note' ? (blocked.push(call.plugin), { block: 'no' }) : undefined),
      });
      const view = host.view({ enable: ['read_note', 'list_notes', 'delete_note'] });
      const viewChanged = new Promise<void>((resolve) => view.on('change', () => resolve()));
      expect(await names(view)).toEqual(['delete_note', 'list_notes', 'read_note']);

      await host.reload();
      await viewChanged;
      expect(await names(view)).toEqual(['delete_note', 'read_note']);
      expect(JSON.parse(await view.dispatch('delete_note', { id: 'a' })).code).toBe('TOOL_BLOCKED');
      expect(JSON.parse(await host.dispatch('delete_note', { id: 'a' })).code).toBe('TOOL_BLOCKED');
      expect(blocked).toHaveLength(2);
      // The first host was retired once idle.
      await expect.poll(() => first.dispatch('read_note', { id: 'a' })).toContain('HOST_CLOSED');
    } finally {
      await host.close();
    }
    expect(JSON.parse(await second.dispatch('read_note', { id: 'a' })).code).toBe('HOST_CLOSED');
  });

  it("keeps its call listeners and the console's approvers across a reload", async () => {
    const approve = { tools: ['delete_note'], timeoutMs: 10_000 };
    const first = await createToolHost(fixtureOptions(['notes'], { config: { approve } }));
    const second = await createToolHost(fixtureOptions(['notes'], { config: { approve } }));
    const host = createReloadingHost(first, async () => second);
    try {
      const calls: CallRecord[] = [];
      host.on('call', (record) => calls.push(record));
      const asked: string[] = [];
      inspectorOf(host).addApprover((request) => (asked.push(request.tool), true));
      await host.dispatch('read_note', { id: 'a' });
      await host.reload();
      // A call with an approver that cannot ask anyone: the console's answers it, on the new host.
      expect(
        await host.dispatch('delete_note', { id: 'a' }, { onApproval: () => ({ approved: false, abstain: true }) }),
      ).toBe('deleted a');
      expect(asked).toEqual(['delete_note']);
      expect(calls.map((record) => record.tool)).toEqual(['read_note', 'delete_note']);
      expect(inspectorOf(host).toolInfo('read_note')?.name).toBe('read_note');
    } finally {
      await host.close();
    }
  });
});
