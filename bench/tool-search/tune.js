/**
 * Tunes the ranking on the tuning half of the real catalogue only: a
 * coordinate search over the ranking's settings, one at a time, keeping a
 * change when it raises the tuning half's score (MRR@10 + recall@5, over the
 * half's own servers and over the whole catalogue). It prints the settings it
 * ends with; it never evaluates the held-out half (bench scenario 14 does).
 *
 *   npm run build && node bench/tool-search/tune.js
 */
import { ToolIndex, RANKING } from '../../dist/core/call/search/search-index.js';
import { evaluateHalf, half, indexedTool } from './real-eval.js';

const own = half('tuning');
const whole = half('tuning', { own: false });

const ranker = (options) => (tools) => {
  const index = new ToolIndex(options);
  index.sync(tools.map(indexedTool));
  return (query) => index.search(query, 10);
};

function score(options) {
  const a = evaluateHalf(own, ranker(options));
  const b = evaluateHalf(whole, ranker(options));
  return { value: a.mrrAt10 + a.recallAt5 + b.mrrAt10 + b.recallAt5, a, b };
}

const show = (label, { a, b }) =>
  console.log(
    `${label.padEnd(44)} own r@1 ${a.recallAt1.toFixed(3)} r@5 ${a.recallAt5.toFixed(3)} mrr ` +
      `${a.mrrAt10.toFixed(3)} | all r@1 ${b.recallAt1.toFixed(3)} r@5 ${b.recallAt5.toFixed(3)} mrr ` +
      `${b.mrrAt10.toFixed(3)}`,
  );

/** Each setting and the values tried for it. */
const AXES = [
  ...['name', 'summary', 'description', 'parameters', 'source'].flatMap((field) => [
    {
      label: `${field}.weight`,
      values: [0, 0.25, 0.5, 1, 1.5, 2, 3, 4, 6],
      set: (o, v) => ({ ...o, fields: { ...o.fields, [field]: { ...o.fields[field], weight: v } } }),
    },
    {
      label: `${field}.b`,
      values: [0, 0.25, 0.5, 0.75, 0.9, 1],
      set: (o, v) => ({ ...o, fields: { ...o.fields, [field]: { ...o.fields[field], b: v } } }),
    },
  ]),
  { label: 'k1', values: [0.6, 0.9, 1.2, 1.6, 2, 3], set: (o, v) => ({ ...o, k1: v }) },
  { label: 'coverage', values: [0, 0.5, 1, 1.5, 2, 3], set: (o, v) => ({ ...o, coverage: v }) },
  { label: 'proximity', values: [0, 0.1, 0.2, 0.4, 0.8], set: (o, v) => ({ ...o, proximity: v }) },
  { label: 'stemming', values: [false, true], set: (o, v) => ({ ...o, stemming: v }) },
  {
    label: 'feedback',
    values: [
      false,
      { docs: 2, terms: 3, weight: 0.2 },
      { docs: 3, terms: 5, weight: 0.2 },
      { docs: 3, terms: 5, weight: 0.4 },
      { docs: 5, terms: 8, weight: 0.2 },
      { docs: 3, terms: 10, weight: 0.1 },
    ],
    set: (o, v) => ({ ...o, feedback: v }),
  },
];

console.log(
  `tuning half: ${own.servers.length} servers, ${own.tools.length} tools, ${own.queries.length} queries (whole ` +
    `catalogue: ${whole.tools.length} tools)`,
);
let best = RANKING;
let bestScore = score(best);
show('RANKING as shipped', bestScore);
for (let round = 0; round < 2; round++) {
  for (const axis of AXES) {
    for (const value of axis.values) {
      const candidate = axis.set(best, value);
      const result = score(candidate);
      if (result.value > bestScore.value + 1e-9) {
        best = candidate;
        bestScore = result;
        show(`round ${round + 1}: ${axis.label} = ${JSON.stringify(value)}`, result);
      }
    }
  }
}
console.log(JSON.stringify({ ...best, fieldWords: undefined, perSource: undefined, wordy: undefined }, null, 1));
