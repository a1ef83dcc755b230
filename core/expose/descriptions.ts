/**
 * Layer 3's description rewriting: conditional parts are resolved against
 * the final exposed set, and a guard flags any description that still names
 * a registered tool the model cannot call.
 */
import type { DescriptionPart } from '../../boundary/plugin-api.js';

/** Joins the parts whose conditions hold against `exposed`. */
export function resolveDescription(parts: readonly DescriptionPart[], exposed: { has(name: string): boolean }): string {
  // Most descriptions are one plain string: no arrays to build for those.
  if (parts.length === 1 && typeof parts[0] === 'string') return parts[0].trim();
  let out = '';
  for (const part of parts) {
    let text: string | undefined;
    if (typeof part === 'string') text = part;
    else if ('ifAvailable' in part) {
      if (part.ifAvailable.every((name) => exposed.has(name))) text = part.text;
    } else if (part.ifMissing.some((name) => !exposed.has(name))) text = part.text;
    text = text?.trim();
    if (text) out = out ? `${out} ${text}` : text;
  }
  return out;
}

/** Runs of tool-name characters; a name occurs in a text exactly when it is one of its tokens. */
const TOKEN = /[A-Za-z0-9_-]+/g;

const NO_NAMES: readonly string[] = Object.freeze([]);

/**
 * The registered tool names each description text mentions, kept while the texts stay
 * few (a bound that follows the registry's size) and shared by the host and its views (they share one registry):
 * mentions depend on the
 * text and the set of registered names alone, and a host's texts are its manifests'
 * descriptions with their conditional parts resolved (a few variants per tool at most).
 * So a recompute or a new view tokenizes only a text never seen before (O(its size), one
 * set lookup per token), and the guard then looks only at the few names a text mentions.
 */
export class DescriptionTokens {
  private readonly memo = new Map<string, { known: ReadonlySet<string>; names: readonly string[] }>();

  /** How many texts are kept. */
  get size(): number {
    return this.memo.size;
  }

  /** The distinct names in `known` (the registered names) that `definition.description` mentions as whole words. */
  of(definition: { readonly description: string }, known: ReadonlySet<string>): readonly string[] {
    const text = definition.description;
    const kept = this.memo.get(text);
    if (kept?.known === known) return kept.names;
    // Texts of tools that are gone (a plugin set replaced, an MCP server's changed descriptions)
    // are never asked for again: past a few texts a registered name, start over.
    if (!kept && this.memo.size >= 4 * known.size + 1024) this.memo.clear();
    let names: string[] | undefined;
    for (const token of text.match(TOKEN) ?? NO_NAMES) {
      if (!known.has(token) || names?.includes(token)) continue;
      (names ??= []).push(token);
    }
    const entry = { known, names: names ?? NO_NAMES };
    this.memo.set(text, entry);
    return entry.names;
  }
}

/**
 * Names in `hidden` (registered, not exposed) among those a description mentions, other than
 * `self`, sorted: a description mentions a name as a whole word (`read_file` does not hit
 * `read_files`: tool names are runs of [A-Za-z0-9_-]).
 */
export function danglingReferences(mentioned: readonly string[], self: string, hidden: ReadonlySet<string>): string[] {
  if (!mentioned.length) return NO_NAMES as string[];
  const hits: string[] = [];
  for (const name of mentioned) if (name !== self && hidden.has(name)) hits.push(name);
  return hits.sort();
}
