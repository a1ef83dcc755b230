/**
 * Every registered tool's state in one exposure, by name. Built by position: the
 * pipeline fills an array in registry order and names resolve through the plugin
 * set's one name → position map, so a recompute at thousands of tools hashes no
 * name to make it; the few states that are not registered tools (a failed
 * plugin's last known tools, the host's tool_search) sit in a small map beside it.
 */
import type { ToolState } from './public-types.js';

/** Read like a `ReadonlyMap` (get, has, size, iteration in registry order). */
export class ToolStates {
  private readonly extra = new Map<string, ToolState>();

  /** `at[i]` is the state of the tool at `position` i; every position has one. */
  constructor(
    private readonly position: ReadonlyMap<string, number>,
    private readonly at: ToolState[],
  ) {}

  get(name: string): ToolState | undefined {
    const i = this.position.get(name);
    return i === undefined ? this.extra.get(name) : this.at[i];
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** Adds or replaces a state (while the exposure is being computed). */
  set(name: string, state: ToolState): this {
    const i = this.position.get(name);
    if (i === undefined) this.extra.set(name, state);
    else this.at[i] = state;
    return this;
  }

  get size(): number {
    return this.at.length + this.extra.size;
  }

  *values(): IterableIterator<ToolState> {
    yield* this.at;
    yield* this.extra.values();
  }

  *keys(): IterableIterator<string> {
    for (const state of this.values()) yield state.name;
  }

  *entries(): IterableIterator<[string, ToolState]> {
    for (const state of this.values()) yield [state.name, state];
  }

  [Symbol.iterator](): IterableIterator<[string, ToolState]> {
    return this.entries();
  }

  forEach(callback: (value: ToolState, key: string, map: ToolStates) => void, thisArg?: unknown): void {
    for (const state of this.values()) callback.call(thisArg, state, state.name, this);
  }
}
