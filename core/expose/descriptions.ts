/**
 * Layer 3's description rewriting: conditional parts are resolved against
 * the final exposed set, and a guard flags any description that still names
 * a registered tool the model cannot call.
 */
import type { DescriptionPart } from '../plugin.js';

/** Joins the parts whose conditions hold against `exposed`. */
export function resolveDescription(parts: readonly DescriptionPart[], exposed: ReadonlySet<string>): string {
  const kept: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') kept.push(part);
    else if ('ifAvailable' in part) {
      if (part.ifAvailable.every((name) => exposed.has(name))) kept.push(part.text);
    } else if (part.ifMissing.some((name) => !exposed.has(name))) kept.push(part.text);
  }
  return kept
    .map((text) => text.trim())
    .filter(Boolean)
    .join(' ');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Registered tools, other than `self`, that `text` names although they are not exposed. */
export function danglingReferences(text: string, self: string, registered: Iterable<string>, exposed: ReadonlySet<string>): string[] {
  const hits: string[] = [];
  for (const name of registered) {
    // The substring test is a cheap filter: most names do not occur at all.
    if (name === self || exposed.has(name) || !text.includes(name)) continue;
    // Tool names are identifiers; match them whole so `read_file` does not hit `read_files`.
    if (new RegExp(`(?<![A-Za-z0-9_-])${escapeRegExp(name)}(?![A-Za-z0-9_-])`).test(text)) hits.push(name);
  }
  return hits.sort();
}
