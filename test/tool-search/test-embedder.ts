/**
 * A deterministic embedder for tests (never shipped): 64 dimensions, a text's
 * words counted into them. The first 16 dimensions are concepts a little
 * thesaurus maps words to ("grab", "download", "fetch" → one), so a paraphrase
 * with no word in common lands near the text it means, as a real model's would;
 * any other word is hashed (FNV-1a) into the other 48. It records every text it
 * embeds and every signal it is given.
 */
import type { Embedder } from 'toolshed';

/** The test thesaurus: each group is one concept dimension. */
const CONCEPTS = [
  ['grab', 'download', 'fetch', 'retrieve', 'pull'],
  ['website', 'page', 'url', 'site', 'webpage', 'address', 'http'],
  ['mail', 'email', 'message', 'letter', 'send', 'recipient', 'subject'],
  ['weather', 'conditions', 'forecast', 'rain', 'umbrella', 'town', 'city'],
  ['file', 'disk', 'path', 'read', 'open', 'contents'],
  ['note', 'notes', 'memo', 'jot', 'write', 'text'],
  ['sync', 'synced', 'cloud', 'backup', 'upload'],
];
const CONCEPT = new Map(CONCEPTS.flatMap((words, i) => words.map((word) => [word, i] as const)));
const DIMENSIONS = 64;
const FIRST_HASHED = 16;

function fnv1a(word: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** The 64-dimension vector of `text`. */
export function vectorOf(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().split(/[^a-z0-9]+/)) {
    if (!word) continue;
    const concept = CONCEPT.get(word);
    vector[concept ?? FIRST_HASHED + (fnv1a(word) % (DIMENSIONS - FIRST_HASHED))]! += 1;
  }
  return vector;
}

/** A test embedder and what it was asked. */
export interface TestEmbedder extends Embedder {
  /** every text embedded, in order (tool texts and queries) */
  texts: string[];
  /** the signal of every call */
  signals: AbortSignal[];
  /** calls made */
  calls: number;
}

/**
 * The deterministic embedder; `answer` may replace its answer for one call (to
 * fail, hang or return the wrong shape), given the texts and the right answer.
 */
export function testEmbedder(
  answer?: (texts: string[], right: number[][], signal: AbortSignal) => Promise<number[][]> | number[][],
): TestEmbedder {
  const embedder: TestEmbedder = {
    model: 'test-concepts-64',
    texts: [],
    signals: [],
    calls: 0,
    async embed(texts, { signal }) {
      embedder.calls++;
      embedder.texts.push(...texts);
      embedder.signals.push(signal);
      const right = texts.map(vectorOf);
      return answer ? answer(texts, right, signal) : right;
    },
  };
  return embedder;
}

/** Whether `text` is a tool's text (what toolshed embeds per tool: "name words: description…"), not a query. */
export function isToolText(text: string): boolean {
  return text.includes(': ');
}
