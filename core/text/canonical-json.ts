/**
 * JSON with every object's keys sorted: one text per value, whatever order its
 * keys were written in (what JSON.stringify leaves out — undefined, functions —
 * is left out here too). What toolshed hashes to tell values apart: accepted
 * configs, pinned MCP tool definitions, compiled schemas.
 */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(
            Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
          )
        : v,
    ) ?? 'null'
  );
}
