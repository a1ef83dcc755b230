/**
 * Result normalization shared by the worker (which caps before sending, so a
 * huge result never crosses the boundary) and the host (which re-checks).
 */

/** A string as is; MCP-style `{ content: [{ type: 'text', text }] }` as its joined text; anything else as JSON. */
export function resultText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isTextContent(value)) return value.content.map((part) => (part.type === 'text' ? part.text : JSON.stringify(part))).join('\n');
  if (value === undefined) return '';
  const json = JSON.stringify(value);
  return json === undefined ? String(value) : json;
}

function isTextContent(value: unknown): value is { content: Array<{ type: string; text: string }> } {
  if (typeof value !== 'object' || value === null) return false;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== 'content') return false;
  const content = (value as { content: unknown }).content;
  return Array.isArray(content) && content.every((part) => typeof part === 'object' && part !== null && typeof (part as { type?: unknown }).type === 'string');
}

/** The marker appended to a capped result; it names the original length. */
export function truncationMarker(originalLength: number, kept: number): string {
  return `\n[RESULT_TRUNCATED: showing ${kept} of ${originalLength} characters]`;
}

/** Cuts `text` to at most `max` characters including the marker. */
export function capText(text: string, max: number, originalLength = text.length): string {
  // Already within the cap (possibly cut and marked upstream): leave it as is.
  if (text.length <= max) return text;
  const marker = truncationMarker(originalLength, 0);
  const keep = Math.max(0, max - marker.length - 8);
  return text.slice(0, keep) + truncationMarker(originalLength, keep);
}
