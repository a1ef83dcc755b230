/**
 * A tool's examples (valid argument sets) for the formats that have no field for them (openai,
 * responses, gemini): appended to the description, one JSON line each, within
 * EXAMPLES_MAX_CHARS. Examples that do not fit are left out whole (half an example would teach
 * the model a wrong call); anthropic sends them as `input_examples` instead.
 */
import type { ToolDefinition } from './types.js';

/** The most characters the examples add to a description, heading included. */
export const EXAMPLES_MAX_CHARS = 1_000;

const HEADING = '\n\nExamples of valid arguments:';

/** Descriptions with examples, by definition: formats and recomputes of one definition share one string. */
const described = new WeakMap<ToolDefinition, string>();

/** The definition's description, followed by as many of its examples as fit in EXAMPLES_MAX_CHARS. */
export function describedWithExamples(d: ToolDefinition): string {
  if (!d.examples?.length) return d.description;
  let text = described.get(d);
  if (text === undefined) {
    let added = '';
    for (const example of d.examples) {
      const line = `\n${JSON.stringify(example)}`;
      if (HEADING.length + added.length + line.length > EXAMPLES_MAX_CHARS) break;
      added += line;
    }
    text = added ? `${d.description}${HEADING}${added}` : d.description;
    described.set(d, text);
  }
  return text;
}
