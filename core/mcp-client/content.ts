/**
 * An MCP `tools/call` result on its way into dispatch: the text the model
 * reads through `dispatch()` (text blocks as they are, other blocks as a
 * short line, never raw base64), and the blocks themselves, kept whole for
 * `host.call()` and `toolshed serve` whenever the result is more than one
 * plain text block. `isError` results stay failures, and keep their blocks
 * even when there is one, so `serve` sends the server's own error out as it
 * came in rather than toolshed's error envelope.
 */
import { capText } from '../../boundary/normalize.js';
import type { ContentBlock, RichContent } from '../../boundary/outcome.js';
import type { NormalizedResult } from '../../boundary/protocol.js';

/** The parts of a `tools/call` result toolshed reads (the SDK has validated its shape). */
export interface UpstreamResult {
  content?: Array<{ type: string; [key: string]: unknown }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  /** a server on the 2024-10-07 protocol may answer `{ toolResult }` instead */
  toolResult?: unknown;
}

/** The decoded size of base64 text, without decoding it. */
function approxBytes(base64: unknown): number {
  if (typeof base64 !== 'string') return 0;
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/** One block as a line of text for the model. */
function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return String(block.text ?? '');
    case 'image':
    case 'audio':
      return `[${block.type}: ${String(block.mimeType ?? 'unknown type')}, ${approxBytes(block.data)} bytes]`;
    case 'resource': {
      const resource = (block.resource ?? {}) as { uri?: string; mimeType?: string; text?: string; blob?: string };
      if (typeof resource.text === 'string') return JSON.stringify(block);
      return (
        `[resource ${String(resource.uri ?? '')}: ${String(resource.mimeType ?? 'unknown type')}, ` +
        `${approxBytes(resource.blob)} bytes]`
      );
    }
    default:
      // resource_link and anything newer: small, and the JSON is what a model can use.
      return JSON.stringify(block);
  }
}

/** Whether the result is exactly one unadorned text block, which the text alone carries without loss. */
function plainText(blocks: ContentBlock[], structured: unknown): boolean {
  if (structured !== undefined || blocks.length !== 1) return false;
  const [only] = blocks;
  return only!.type === 'text' && Object.keys(only!).every((key) => key === 'type' || key === 'text');
}

/** The handler output of an MCP result, its text capped at `maxResultChars`. */
export function handlerOutput(result: UpstreamResult, maxResultChars: number): NormalizedResult {
  if (result.content === undefined && 'toolResult' in result) {
    const text = typeof result.toolResult === 'string' ? result.toolResult : (JSON.stringify(result.toolResult) ?? '');
    return { text: capText(text, maxResultChars), originalLength: text.length };
  }
  const blocks = (result.content ?? []) as ContentBlock[];
  const structured = result.structuredContent;
  let text = blocks.map(blockText).join('\n');
  if (!blocks.length && structured !== undefined) text = JSON.stringify(structured);
  const out: NormalizedResult = { text: capText(text, maxResultChars), originalLength: text.length };
  if (result.isError || !plainText(blocks, structured)) {
    const content: RichContent = { blocks };
    if (structured !== undefined) content.structured = structured;
    out.content = content;
  }
  if (result.isError) out.isError = true;
  return out;
}
