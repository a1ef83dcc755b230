// The agent loop: definitions → model → tool_calls → dispatch → results appended → next turn.
import { dispatchToolCalls } from './tool-calls.js';

/** How many model turns a run may take before it stops (a model that never stops calling tools). */
export const DEFAULT_MAX_TURNS = 8;

/**
 * Runs the conversation until the model answers without calling a tool, or
 * `maxTurns` model calls were made.
 *
 * @param {object} options
 * @param {import('openai').OpenAI} options.client an OpenAI client (any OpenAI-compatible endpoint)
 * @param {string} options.model
 * @param {import('../../../dist/core/index.js').ToolHost} options.host
 * @param {Array<object>} options.messages the conversation so far (system and user messages)
 * @param {number} [options.maxTurns]
 * @param {boolean} [options.strict] send the tools in OpenAI strict mode
 * @param {AbortSignal} [options.signal] aborts the model request and the running tool calls
 * @param {(event: { turn: number, toolCalls: Array<object>, results: Array<object> }) => void} [options.onToolCalls]
 * @returns {Promise<{ answer: string | null, messages: Array<object>, turns: number, stopReason: 'done' | 'max_turns'
 *          }>}
 */
export async function runAgentLoop({
  client,
  model,
  host,
  messages,
  maxTurns = DEFAULT_MAX_TURNS,
  strict = false,
  signal,
  onToolCalls,
}) {
  const transcript = [...messages];
  for (let turn = 1; turn <= maxTurns; turn++) {
    // Asked every turn: availability may have changed since the last one (definitions are memoized, so this is cheap).
    const tools = await host.definitions({ format: 'openai', strict });
    const originals = strict ? await originalSchemas(host) : undefined;
    const completion = await client.chat.completions.create(
      { model, messages: transcript, ...(tools.length ? { tools } : {}) },
      { signal },
    );
    const message = completion.choices[0]?.message;
    if (!message) throw new Error(`the model returned no choices (turn ${turn})`);
    const toolCalls = message.tool_calls ?? [];
    // Only what the API accepts back; the assistant message must precede its tool results.
    transcript.push({
      role: 'assistant',
      content: message.content ?? null,
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    });
    if (!toolCalls.length)
      return { answer: message.content ?? '', messages: transcript, turns: turn, stopReason: 'done' };
    const results = await dispatchToolCalls(host, toolCalls, { signal, originals });
    transcript.push(...results);
    onToolCalls?.({ turn, toolCalls, results });
  }
  return { answer: null, messages: transcript, turns: maxTurns, stopReason: 'max_turns' };
}

/** name → original parameters: strict mode changed the schema the model saw, dispatch checks the original. */
async function originalSchemas(host) {
  const plain = await host.definitions({ format: 'openai' });
  return new Map(plain.map((tool) => [tool.function.name, tool.function.parameters]));
}
