/**
 * The rankings tool_search is compared with: a plain BM25 over name and
 * description with MiniSearch's default options, and a substring match on
 * names (each query word found in the name counts one; ties keep catalogue
 * order).
 */
import MiniSearch from 'minisearch';

/** MiniSearch with its defaults over `name` and `description`. */
export function plainBm25(tools) {
  const index = new MiniSearch({ fields: ['name', 'description'], idField: 'name' });
  index.addAll(tools.map((t) => ({ name: t.name, description: t.description })));
  return (query) => index.search(query).map((r) => r.id);
}

/** Names containing the most query words (lower-cased, 3 letters or more). */
export function substring(tools) {
  return (query) => {
    const words = query
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length >= 3);
    return tools
      .map((t, i) => ({ name: t.name, i, hits: words.filter((w) => t.name.toLowerCase().includes(w)).length }))
      .filter((r) => r.hits > 0)
      .sort((a, b) => b.hits - a.hits || a.i - b.i)
      .map((r) => r.name);
  };
}
