/**
 * What a stateless fleet knows of a 2025-era client. Such a client sends a
 * session id only when the server issued one at `initialize`, so a stateless
 * replica issues one (random, opaque) and keeps what the client declared
 * (its capabilities and protocol version) in the state store under it: a
 * per-request server on any replica, which never saw the `initialize`, then
 * knows what the client can do, and the id keys the session's state
 * (tool_search's loaded set, plugins' per-session values). With `serve.auth`
 * the id also belongs to the identity that first used it, recorded beside it,
 * so another caller who names it is refused on every replica.
 */
import { randomUUID } from 'node:crypto';
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import type { StateStore } from '../../state/store-contract.js';

/** What a client's `initialize` declared. */
interface ClientRecord {
  capabilities: ClientCapabilities;
  protocolVersion: string;
}

/** The declarations of the 2025-era clients of a stateless fleet, by session id. */
export class StatelessClients {
  constructor(
    private readonly state: StateStore,
    /** how long a record lives after the client's last initialize (config `state.sessionTtlMs`) */
    private readonly ttlMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Records what an `initialize` request declared under `id` (a new one when the client brought none); the id, even
   * when the store failed (then nothing is known of the client).
   */
  async opened(
    initialize: { params?: { capabilities?: ClientCapabilities; protocolVersion?: string } },
    id: string = randomUUID(),
  ): Promise<string> {
    const record: ClientRecord = {
      capabilities: initialize.params?.capabilities ?? {},
      protocolVersion: initialize.params?.protocolVersion ?? '',
    };
    await this.state.set(this.key(id), JSON.stringify(record), this.ttlMs).catch(this.onError);
    return id;
  }

  /**
   * The capabilities the session's client declared at initialize (undefined when unknown, expired, or the store
   * failed); a read keeps the record alive.
   */
  async capabilities(sessionId: string | undefined): Promise<ClientCapabilities | undefined> {
    if (sessionId === undefined) return undefined;
    try {
      const value = await this.state.get(this.key(sessionId));
      if (value === undefined) return undefined;
      void this.state.touch(this.key(sessionId), this.ttlMs).catch(this.onError);
      return (JSON.parse(value) as ClientRecord).capabilities;
    } catch (error) {
      this.onError(error);
      return undefined;
    }
  }

  /**
   * Whether `owner` (core/http/caller.ts's `ownerKey`) may use the session `id`: yes when it is its own or
   * no one's yet, and then it is its own for `ttlMs` past this use. Throws when the store fails
   * (nobody can tell then, and the request is refused). Two callers naming a new id at once
   * could both pass: only the client it was issued to knows it.
   */
  async claim(id: string, owner: string): Promise<boolean> {
    const key = `mcp:owner:${id}`;
    const current = await this.owner(id);
    if (current !== undefined && current !== owner) return false;
    await (current === undefined ? this.state.set(key, owner, this.ttlMs) : this.state.touch(key, this.ttlMs));
    return true;
  }

  /**
   * Who the session `id` belongs to (core/http/caller.ts's `ownerKey`), or undefined when no one has claimed it; throws
   * when the
   * store fails.
   */
  async owner(id: string): Promise<string | undefined> {
    return this.state.get(`mcp:owner:${id}`);
  }

  private key(sessionId: string): string {
    return `mcp:client:${sessionId}`;
  }
}
