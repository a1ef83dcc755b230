/**
 * Held calls answerable on any replica of a fleet. A call held for the
 * client's user (protocol/input-rounds.ts) keeps running in the replica that started
 * it, but a 2026-07-28 client's retry (or a stateless client's) may reach
 * any replica. So a held call is registered in the state store under its
 * token (its owner replica, session and tool); a replica that receives a
 * retry whose token it does not hold looks it up and sends the answers to
 * the owner over the store's publish/subscribe; the owner hands them to the
 * call and sends back what the round answers (the result, or the next
 * questions), which the receiving replica returns to the client.
 *
 * Trust: the token is unguessable and travels only to the client that made
 * the call; the owner checks the session, tool and identity again. The messages
 * are signed with the fleet's key (state/signed-messages.ts): a store writer
 * without it can send neither answers nor replies, and a message that is not
 * what it should be is dropped, never thrown. The record naming the owner is a
 * value in the store, not signed: a store writer can make a retry go nowhere
 * (the call is then lost), not answer it (docs/security.md).
 */
import { randomUUID } from 'node:crypto';
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import { sameOwner, type HeldCall, type InputRounds } from '../protocol/input-rounds.js';
import type { StateStore } from '../../state/store-contract.js';

/** Who may resume a held call (protocol/input-rounds.ts). */
interface Owner {
  sessionId: string;
  tool: string;
  caller: string;
}

/** A held call as the store records it. */
interface HeldRecord extends Owner {
  replica: string;
}

/** What a replica sends the owner of a held call. */
interface Forwarded {
  token: string;
  owner: Owner;
  responses?: Record<string, unknown>;
  /** the client cancelled the round: cancel the call */
  cancel?: boolean;
  replyTo: string;
}

/** What the owner sends back: it has the call (ack), the round's answer, or it holds no such call. */
type Reply = { kind: 'ack' } | { kind: 'answer'; answer: CallToolResult | InputRequiredResult } | { kind: 'gone' };

/** How long a forwarding replica waits for the owner to acknowledge before saying the call is lost. */
const ACK_TIMEOUT_MS = 5_000;

/** A call's outcome when the replica holding it did not answer. */
function lost(why: string): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: JSON.stringify({
          error: `the call waiting for this answer is lost: ${why}; call the tool again`,
          code: 'TOOL_CRASHED',
        }),
      },
    ],
  };
}

/** The held calls of one replica's endpoint, shared with the other replicas through the store. */
export class SharedRounds {
  /** this replica's name on the store's channels */
  readonly replica = randomUUID();
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly rounds: InputRounds,
    private readonly state: StateStore,
    /** how long a held call's record lives without a round (the rounds' idle bound) */
    private readonly ttlMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Starts answering other replicas' forwarded rounds (a store that fails now is reported: this replica's held calls
   * are then answerable only here).
   */
  async start(): Promise<void> {
    this.unsubscribe = await this.state
      .subscribe(`rounds:${this.replica}`, (message) => void this.receive(message).catch(this.onError))
      .catch((error: unknown) => {
        this.onError(error);
        return undefined;
      });
  }

  /** Records that `call` is held here, so a retry on another replica finds it. */
  async held(call: HeldCall): Promise<void> {
    const record: HeldRecord = { ...call.owner, replica: this.replica };
    await this.state.set(`round:${call.token}`, JSON.stringify(record), this.ttlMs).catch(this.onError);
  }

  /** Forgets the record of a call whose result was handed out. */
  async released(call: HeldCall): Promise<void> {
    await this.state.delete(`round:${call.token}`).catch(this.onError);
  }

  /**
   * Answers a round whose call another replica holds: undefined when no replica holds `token`
   * for `owner` (the caller then treats the request as a new call).
   */
  async forward(
    token: string,
    owner: Owner,
    responses: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ): Promise<CallToolResult | InputRequiredResult | undefined> {
    const record = await this.record(token);
    if (!record || record.replica === this.replica || !sameOwner(record, owner)) return undefined;
    const replyTo = `rounds:reply:${randomUUID()}`;
    const inbox = new Inbox(signal);
    const unsubscribe = await this.state.subscribe(replyTo, (message) => {
      const reply = parseReply(message);
      if (reply) inbox.push(reply);
    });
    const send = (message: Omit<Forwarded, 'replyTo'>) =>
      this.state.publish(`rounds:${record.replica}`, JSON.stringify({ ...message, replyTo } satisfies Forwarded));
    const onAbort = () => void send({ token, owner, cancel: true }).catch(this.onError);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await send({ token, owner, ...(responses ? { responses } : {}) });
      // The owner acknowledges at once; then the answer may take as long as the call does.
      let reply = await inbox.next(ACK_TIMEOUT_MS);
      if (reply?.kind === 'ack') reply = await inbox.next();
      if (!reply) return lost(signal.aborted ? 'the request was cancelled' : 'the replica holding it did not answer');
      return reply.kind === 'answer' ? reply.answer : lost('no replica holds it any more');
    } finally {
      signal.removeEventListener('abort', onAbort);
      await unsubscribe();
    }
  }

  /** Stops answering forwarded rounds. */
  async close(): Promise<void> {
    await this.unsubscribe?.();
  }

  private async record(token: string): Promise<HeldRecord | undefined> {
    const value = await this.state.get(`round:${token}`).catch((error: unknown) => this.onError(error));
    return value ? (JSON.parse(value) as HeldRecord) : undefined;
  }

  /** A round forwarded to this replica: hand the answers to the call, and reply with what the round answers. */
  private async receive(message: string): Promise<void> {
    const forwarded = parseForwarded(message);
    if (!forwarded) return;
    const reply = (value: Reply) => this.state.publish(forwarded.replyTo, JSON.stringify(value));
    const call = this.rounds.resume(forwarded.token, forwarded.owner);
    if (!call) return reply({ kind: 'gone' });
    await reply({ kind: 'ack' });
    if (forwarded.cancel) return call.cancel();
    call.deliver(forwarded.responses);
    const answer = await call.next(new AbortController().signal);
    if (call.done) {
      this.rounds.release(call);
      await this.released(call);
    } else {
      this.rounds.hold(call);
      await this.held(call);
    }
    await reply({ kind: 'answer', answer });
  }
}

/** `value` parsed as JSON, or undefined. */
function json(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A reply as the owner sends it, or undefined for anything else. */
function parseReply(message: string): Reply | undefined {
  const reply = json(message);
  if (!isObject(reply)) return undefined;
  if (reply.kind === 'ack' || reply.kind === 'gone') return { kind: reply.kind };
  return reply.kind === 'answer' && isObject(reply.answer) ? (reply as Reply) : undefined;
}

/** A forwarded round as a replica sends it, or undefined for anything else. */
function parseForwarded(message: string): Forwarded | undefined {
  const forwarded = json(message);
  if (
    !isObject(forwarded) ||
    typeof forwarded.token !== 'string' ||
    typeof forwarded.replyTo !== 'string' ||
    !forwarded.replyTo.startsWith('rounds:reply:')
  )
    return undefined;
  const { owner } = forwarded;
  if (
    !isObject(owner) ||
    typeof owner.sessionId !== 'string' ||
    typeof owner.tool !== 'string' ||
    typeof owner.caller !== 'string'
  )
    return undefined;
  if (forwarded.responses !== undefined && !isObject(forwarded.responses)) return undefined;
  return forwarded as unknown as Forwarded;
}

/**
 * Replies in arrival order, read one at a time; a read ends early (undefined) at its timeout or when the round's
 * request is aborted.
 */
class Inbox {
  private readonly queue: Reply[] = [];
  private waiting: ((reply: Reply | undefined) => void) | undefined;

  constructor(private readonly signal: AbortSignal) {}

  push(reply: Reply): void {
    if (this.waiting) this.waiting(reply);
    else this.queue.push(reply);
  }

  next(timeoutMs?: number): Promise<Reply | undefined> {
    const queued = this.queue.shift();
    if (queued || this.signal.aborted) return Promise.resolve(queued);
    return new Promise((resolve) => {
      const finish = (reply: Reply | undefined) => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', onAbort);
        this.waiting = undefined;
        resolve(reply);
      };
      const onAbort = () => finish(undefined);
      const timer = timeoutMs === undefined ? undefined : setTimeout(onAbort, timeoutMs);
      this.signal.addEventListener('abort', onAbort, { once: true });
      this.waiting = finish;
    });
  }
}
