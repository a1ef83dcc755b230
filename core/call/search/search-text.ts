/**
 * The words tool search reads: tool text and queries split into words (on
 * anything not a letter or digit, and camelCase humps), lower-cased, stop
 * words dropped, stemmed (Porter, the `stemmer` package). The same steps for
 * a tool's fields and for a query, so "screenshots of pages" meets
 * `take_screenshot`'s "Take a screenshot of the page".
 */
import { stemmer } from 'stemmer';
import type { JsonSchema } from '../../../boundary/plugin-api.js';

// A lower-case letter or digit before a capital, or the end of an acronym ("HTTPServer").
const CAMEL = /[\p{Ll}\p{N}]\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u;

/**
 * A camelCase word's humps ("getUserById" → get, User, By, Id; "HTTPServer" → HTTP, Server); a word without humps
 * alone.
 */
export function humps(word: string): string[] {
  // Most words have no hump; testing first keeps indexing a large catalogue fast.
  if (!CAMEL.test(word)) return [word];
  return word
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(' ');
}

/**
 * Splits text into words on anything not a letter or digit; a camelCase word
 * is kept whole and also split into its humps ("getUserById" → getUserById, get, User, By, Id).
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const word of text.split(/[^\p{L}\p{N}]+/u)) {
    if (!word) continue;
    out.push(word);
    const parts = humps(word);
    if (parts.length > 1) out.push(...parts);
  }
  return out;
}

/** Characters of a field split into words at all (a 2 MB description costs no more than this). */
const FIELD_CHARS = 4000;

/**
 * The words of one field as indexed: at most `words` of them (after reading at
 * most FIELD_CHARS characters), each counted at most `repeats` times.
 */
export function fieldTerms(text: string, words: number | false, repeats: number | false): string[] {
  const all = tokenize(words === false ? text : text.slice(0, FIELD_CHARS));
  const capped = words === false ? all : all.slice(0, words);
  if (repeats === false) return capped;
  const seen = new Map<string, number>();
  return capped.filter((word) => {
    const key = word.toLowerCase();
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n <= repeats;
  });
}

/**
 * English function words: they carry no meaning in a query or a description
 * ("how do I list the issues of a repo"). A general list, not one written for
 * any catalogue; "tool" is here because every query is about one.
 */
const STOP_WORDS = new Set(
  [
    'a an and are as at be by can do for from i in into is it me my of on or our please that the this to tool ' +
      'tools use using with you your',
    'how many what which who when where why does did have has get want need some something all any there their ' +
      'them they its was were will would should could just now',
  ]
    .join(' ')
    .split(' '),
);

/** Lower-cases a word and, with `stopWords`, drops stop words. */
export function processTerm(term: string, stopWords = true): string | null {
  const word = term.toLowerCase();
  return stopWords && STOP_WORDS.has(word) ? null : word;
}

/** Stems seen so far: a catalogue repeats its words, and Porter is the costly step. */
const stems = new Map<string, string>();
const STEM_CACHE = 50_000;

/** A lower-cased word's stem (words of one or two characters and those with digits stay as they are). */
export function stem(word: string): string {
  if (word.length < 3 || /\d/.test(word)) return word;
  let out = stems.get(word);
  if (out === undefined) {
    out = stemmer(word);
    if (stems.size >= STEM_CACHE) stems.clear();
    stems.set(word, out);
  }
  return out;
}

/**
 * A description's first sentence: up to the first `.`, `!` or `?` followed by
 * a space or the end, or the first line break. Tool descriptions say what the
 * tool does first and add details, caveats and examples after.
 */
export function firstSentence(text: string): string {
  const end = /[.!?](?:\s|$)|\n/.exec(text);
  return end ? text.slice(0, end.index) : text;
}

/** The words of a schema's property names and descriptions, nested objects and array items included. */
export function parameterText(schema: JsonSchema, depth = 0): string {
  if (depth > 3 || typeof schema !== 'object' || schema === null) return '';
  const parts: string[] = [];
  const properties = schema.properties;
  if (properties && typeof properties === 'object') {
    for (const [name, sub] of Object.entries(properties as Record<string, JsonSchema>)) {
      parts.push(name);
      if (sub && typeof sub.description === 'string') parts.push(sub.description);
      parts.push(parameterText(sub, depth + 1));
    }
  }
  if (schema.items && typeof schema.items === 'object')
    parts.push(parameterText(schema.items as JsonSchema, depth + 1));
  return parts.filter(Boolean).join(' ');
}
