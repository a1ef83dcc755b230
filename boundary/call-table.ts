/**
 * The calls in flight of one pool or worker, by call id. They are few at a time (a pool's
 * threads, plus nested calls running inline), so this is two arrays searched from the end.
 *
 * Not a Map on purpose: a long-lived Map or Set that gets an entry added and deleted per call
 * keeps every call's garbage alive until a full GC. Its backing table is rehashed every few
 * calls, and each replaced table keeps its entries and a link to its successor; once one of
 * them has been promoted to the old generation, the scavenger treats its slots as roots, so
 * every later table and everything their entries reach is promoted too (see
 * docs/performance.md, "Scale", item 1). An array popped in place holds no such chain.
 */
export class CallTable<V> {
  private readonly ids: string[] = [];
  private readonly entries: V[] = [];

  /** Calls in the table. */
  get size(): number {
    return this.ids.length;
  }

  /** Adds call `id` (ids are unique: a random UUID per call). */
  set(id: string, value: V): void {
    this.ids.push(id);
    this.entries.push(value);
  }

  get(id: string): V | undefined {
    for (let i = this.ids.length - 1; i >= 0; i--) if (this.ids[i] === id) return this.entries[i];
    return undefined;
  }

  /** Removes call `id`; the last entry takes its place. */
  delete(id: string): boolean {
    const { ids, entries } = this;
    for (let i = ids.length - 1; i >= 0; i--) {
      if (ids[i] !== id) continue;
      const lastId = ids.pop()!;
      const last = entries.pop()!;
      if (i < ids.length) {
        ids[i] = lastId;
        entries[i] = last;
      }
      return true;
    }
    return false;
  }

  /** The calls' values, as a copy (safe to change the table while iterating it). */
  values(): V[] {
    return [...this.entries];
  }
}
