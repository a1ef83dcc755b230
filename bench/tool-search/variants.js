/**
 * The ranking with one method taken out (or, for feedback, put in), for the
 * benchmark's table of what each method adds: every row differs from what
 * tool_search uses (RANKING) in that one setting.
 */
import { RANKING } from '../../dist/core/call/search/search-index.js';

const field = (name, change) => ({
  ...RANKING,
  fields: { ...RANKING.fields, [name]: { ...RANKING.fields[name], ...change } },
});

/** `[label, options]` pairs. */
export const RANKING_VARIANTS = [
  ['− stemming', { ...RANKING, stemming: false }],
  ['− stop words', { ...RANKING, stopWords: false }],
  ['− name field weight (name as 1)', field('name', { weight: 1 })],
  ['− first-sentence field', field('summary', { weight: 0 })],
  ['− parameters field', field('parameters', { weight: 0 })],
  ['− source field (toolset, server)', field('source', { weight: 0 })],
  [
    '− length normalisation (b = 0 in every field)',
    {
      ...RANKING,
      fields: Object.fromEntries(Object.entries(RANKING.fields).map(([name, f]) => [name, { ...f, b: 0 }])),
    },
  ],
  ['− coverage', { ...RANKING, coverage: 0 }],
  ['− proximity', { ...RANKING, proximity: 0 }],
  [
    '+ pseudo-relevance feedback (3 tools, 5 words, weight 0.3)',
    { ...RANKING, feedback: { docs: 3, terms: 5, weight: 0.3 } },
  ],
  ['− per-source limit', { ...RANKING, perSource: false }],
];
