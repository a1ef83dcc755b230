import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ApprovalRequest, type ApprovalSettled, type CallRecord, type ToolHost } from 'toolshed';
import { inspectorOf } from '#internal/core/host/inspector.js';
import { fixtureOptions, until as waitUntil } from '../helpers.js';

const parse = (text: string) => JSON.parse(text) as { error: string; code: string };

/** An approver that holds every request until the test answers it, as the console does. */
function desk() {
  const held: Array<{
    request: ApprovalRequest;
    answer: (approved: boolean) => void;
    settled: Promise<ApprovalSettled | 'answered'>;
  }> = [];
  const approver = (request: ApprovalRequest) =>
    new Promise<boolean>((resolve) => {
      let answered = false;
      const settled = new Promise<ApprovalSettled | 'answered'>((done) => {
        request.signal.addEventListener(
          'abort',
          () => done(answered ? 'answered' : (request.signal.reason as ApprovalSettled)),
          { once: true },
        );
      });
      held.push({
        request,
        settled,
        answer: (approved) => {
          answered = true;
          resolve(approved);
        },
      });
    });
  return { held, approver };
}

const until = (check: () => boolean) => waitUntil(check, { intervalMs: 5, what: 'the approver being asked' });

describe('approvers added to the host race the call’s own', () => {
  let host: ToolHost;
  beforeAll(async () => {
    host = await createToolHost(
      fixtureOptions(['notes'], { config: { approve: { tools: ['delete_note'], timeoutMs: 10_000 } } }),
    );
  });
  afterAll(() => host.close());

  it('an added approver answers a call whose own approver cannot ask anyone (it abstains)', async () => {
    const { held, approver } = desk();
    const remove = inspectorOf(host).addApprover(approver);
    try {
      const abstains = () => ({ approved: false, abstain: true, reason: 'this client cannot ask its user' });
      const call = host.dispatch('delete_note', { id: 'a' }, { onApproval: abstains, sessionId: 's1' });
      await until(() => held.length === 1);
      expect(held[0]!.request).toMatchObject({
        tool: 'delete_note',
        args: { id: 'a' },
        sessionId: 's1',
        reason: 'listed',
      });
      held[0]!.answer(true);
      expect(await call).toBe('deleted a');
    } finally {
      remove();
    }
  });

  it('the first real answer wins, and the other approver hears who answered and how', async () => {
    const { held, approver } = desk();
    const remove = inspectorOf(host).addApprover(approver);
    try {
      let own: ((decision: boolean) => void) | undefined;
      const call = host.dispatch(
        'delete_note',
        { id: 'b' },
        { onApproval: () => new Promise<boolean>((resolve) => (own = resolve)) },
      );
      await until(() => held.length === 1 && own !== undefined);
      own!(false);
      expect(parse(await call).code).toBe('APPROVAL_DENIED');
      expect(await held[0]!.settled).toEqual({ by: 'another approver', approved: false });
      // The loser's late answer changes nothing.
      held[0]!.answer(true);
    } finally {
      remove();
    }
  });

  it('every approver abstaining refuses with the call’s own reason; once removed, the added one is not asked', async () => {
    const { held, approver } = desk();
    const remove = inspectorOf(host).addApprover(approver);
    remove();
    const out = parse(
      await host.dispatch(
        'delete_note',
        { id: 'c' },
        { onApproval: () => ({ approved: false, abstain: true, reason: 'nobody to ask here' }) },
      ),
    );
    expect(out.code).toBe('APPROVAL_DENIED');
    expect(out.error).toContain('nobody to ask here');
    expect(held).toHaveLength(0);
  });

  it('a call cancelled while held tells the added approver so', async () => {
    const { held, approver } = desk();
    const remove = inspectorOf(host).addApprover(approver);
    try {
      const controller = new AbortController();
      const call = host.dispatch('delete_note', { id: 'd' }, { signal: controller.signal });
      await until(() => held.length === 1);
      controller.abort();
      expect(parse(await call).code).toBe('TOOL_CANCELLED');
      expect(await held[0]!.settled).toEqual({ by: 'cancelled' });
    } finally {
      remove();
    }
  });
});

describe('the call event', () => {
  let host: ToolHost;
  beforeAll(async () => {
    host = await createToolHost(fixtureOptions(['notes']));
  });
  afterAll(() => host.close());

  it('tells of every call through the host and its views when it ends: refused ones too, with arguments and result', async () => {
    const seen: CallRecord[] = [];
    const listener = (record: CallRecord) => seen.push(record);
    host.on('call', listener);
    try {
      const view = host.view({ enable: ['read_note'] });
      await host.dispatch('read_note', { id: 'x' }, { sessionId: 's', callId: 'c9' });
      await view.dispatch('delete_note', { id: 'x' });
      await host.dispatch('no_such_tool', {});
      await view.close();
      expect(seen.map((r) => [r.tool, r.code])).toEqual([
        ['read_note', 'OK'],
        ['delete_note', 'TOOL_NOT_EXPOSED'],
        ['no_such_tool', 'UNKNOWN_TOOL'],
      ]);
      expect(seen[0]).toMatchObject({
        sessionId: 's',
        callId: 'c9',
        plugin: 'toolshed-plugin-notes',
        tier: 'thread',
        args: { id: 'x' },
        chain: [],
      });
      expect(typeof seen[0]!.result).toBe('string');
      expect(new Set(seen.map((r) => r.id)).size).toBe(3);
      expect(Date.parse(seen[0]!.time)).not.toBeNaN();
    } finally {
      host.off('call', listener);
    }
    await host.dispatch('read_note', { id: 'y' });
    expect(seen).toHaveLength(3);
  });
});

describe('the inspector', () => {
  it('gives a tool as declared, a ranked search with what matched, and the breaker’s circuits', async () => {
    const host = await createToolHost(fixtureOptions(['notes']));
    try {
      const inspector = inspectorOf(host);
      expect(inspector.toolInfo('delete_note')).toMatchObject({
        name: 'delete_note',
        plugin: 'toolshed-plugin-notes',
        annotations: { destructiveHint: true },
      });
      expect(inspector.toolInfo('nope')).toBeUndefined();
      const { results, indexed } = await inspector.search('delete', 5);
      expect(indexed).toBeGreaterThan(0);
      const hit = results.find((result) => result.name === 'delete_note');
      expect(hit).toMatchObject({ deferred: false, score: expect.any(Number) });
      expect(Object.values(hit!.matched).flat()).toContain('name');
      expect(inspector.breakers()).toEqual([]);
      expect(() => inspectorOf({} as ToolHost)).toThrow(/not a host made by createToolHost/);
    } finally {
      await host.close();
    }
  });
});
