/**
 * The evaluation on real MCP servers: the tools of the servers in
 * bench/tool-search/real/catalogue.json (listed through toolshed, unedited)
 * and the queries in real/queries.json (written by people who saw only the
 * catalogue, never the ranker), split by server into a tuning half and a
 * held-out half. A query belongs to the half of the server
 * it was written for; each half is evaluated over its own servers' tools
 * (servers the ranker was never tuned on, for the held-out half), and over
 * the whole catalogue. The split is drawn once from a fixed seed: servers in
 * the order of sha256(seed + name), the first half tuning.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { evaluate } from './metrics.js';

const REAL = new URL('./real/', import.meta.url);
const read = (file) => JSON.parse(readFileSync(new URL(file, REAL), 'utf8'));

/** The catalogue: `{ servers, tools }`, each tool `{ name, server, advertised, description, parameters }`. */
export function realCatalogue() {
  return read('catalogue.json');
}

/** The seed the split is drawn with; fixed before any ranking was run on the real catalogue. */
export const SPLIT_SEED = 'toolshed tool search, issue 29';

/** The split: `{ tuning: [server…], heldOut: [server…] }`. */
export function realSplit(servers = realCatalogue().servers.map((server) => server.name)) {
  const key = (name) => createHash('sha256').update(`${SPLIT_SEED}\n${name}`).digest('hex');
  const ordered = [...servers].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  const cut = Math.ceil(ordered.length / 2);
  return { tuning: ordered.slice(0, cut).sort(), heldOut: ordered.slice(cut).sort() };
}

/** Every query: `{ query, acceptable: [tool…], server, writer }`. */
export function realQueries() {
  return read('queries.json').queries;
}

/** A catalogue tool as the index sees it inside a host: toolset `mcp-<server>`, source `mcp:<server>`, trusted. */
export function indexedTool(tool) {
  return {
    definition: { name: tool.name, description: tool.description, parameters: tool.parameters },
    toolset: `mcp-${tool.server}`,
    source: `mcp:${tool.server}`,
    untrusted: false,
  };
}

/**
 * One half: its servers' tools, and its queries as `[query, acceptable]` pairs
 * (acceptable tools of the other half's servers left out when `own` is true,
 * since they are not in that catalogue; a query left with none is dropped).
 */
export function half(name, { own = true } = {}) {
  const catalogue = realCatalogue();
  const split = realSplit();
  const servers = new Set(name === 'tuning' ? split.tuning : split.heldOut);
  const tools = own ? catalogue.tools.filter((tool) => servers.has(tool.server)) : catalogue.tools;
  const names = new Set(tools.map((tool) => tool.name));
  const queries = realQueries()
    .filter((query) => servers.has(query.server))
    .map((query) => [query.query, query.acceptable.filter((tool) => names.has(tool))])
    .filter(([, acceptable]) => acceptable.length > 0);
  return { tools, queries, servers: [...servers] };
}

/** recall@1, recall@5 and MRR@10 of `rankerFor(tools)` on one half. */
export function evaluateHalf(part, rankerFor) {
  return evaluate(part.queries, rankerFor(part.tools));
}
