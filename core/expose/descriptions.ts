/**
 * Layer 3's description rewriting: conditional parts are resolved against
 * the final exposed set, and a guard flags any description that still names
 * a registered tool the model cannot call.
 */
import type { DescriptionPart } from '../plugin.js';

/** Joins the parts whose conditions hold against `exposed`. */
export function resolveDescription(parts: readonly DescriptionPart[], exposed: ReadonlySet<string>): string {
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

/**
 * The name-like tokens of each description text, kept for the host's lifetime
 * and shared by the host and its views: tokens depend on the text alone, and a
 * host's texts are its manifests' descriptions with their conditional parts
 * resolved (a few variants per tool at most), so a recompute or a new view
 * tokenizes only a text never seen before, and the guard costs one set lookup
 * per token.
 */
export class DescriptionTokens {
  private readonly memo = new Map<string, readonly string[]>();

  /** The distinct tokens of `definition.description`. */
  of(definition: { readonly description: string }): readonly string[] {
    const text = definition.description;
    let tokens = this.memo.get(text);
    if (!tokens) {
      tokens = [...new Set(text.match(TOKEN) ?? [])];
      this.memo.set(text, tokens);
    }
    return tokens;
  }
}

/**
 * Names in `hidden` (registered, not exposed), other than `self`, that `text` mentions as a
 * whole word (`read_file` does not hit `read_files`: tool names are runs of [A-Za-z0-9_-]).
 */
export function danglingReferences(tokens: readonly string[], self: string, hidden: ReadonlySet<string>): string[] {
  const hits: string[] = [];
  for (const token of tokens) if (token !== self && hidden.has(token)) hits.push(token);
  return hits.sort();
}
