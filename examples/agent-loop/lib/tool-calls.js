// One assistant turn's tool_calls → `tool` messages, dispatched through toolshed.
import { dropStrictNulls } from './toolshed.js';

/**
 * Runs every tool call of one assistant message and returns the `tool`
 * messages to append, in the order of the calls.
 *
 * The calls of one turn are independent by construction: the model emitted
 * them together, before seeing any of their results. So they run in parallel
 * (each in its plugin's worker pool); a call that needs another's result comes
 * in a later turn. Tool failures are never thrown: dispatch returns the
 * `{"error","code"}` envelope, which the model reads and can react to.
 *
 * @param {import('../../../dist/core/index.js').ToolHost} host
 * @param {Array<{ id: string, type: string, function?: { name: string, arguments: string } }>} toolCalls
 * @param {{ signal?: AbortSignal, sessionId?: string, originals?: Map<string, object> }} [options]
 *   originals: name → the tool's original schema, when the tools were sent in strict mode
 * @returns {Promise<Array<{ role: 'tool', tool_call_id: string, content: string }>>}
 */
export function dispatchToolCalls(host, toolCalls, { signal, sessionId, originals } = {}) {
  return Promise.all(
    toolCalls.map(async (call) => {
      if (call.type !== 'function' || !call.function) {
        return {
          role: 'tool',
          tool_call_id: call.id,
          content: JSON.stringify({ error: `unsupported tool call type '${call.type}'`, code: 'UNKNOWN_TOOL' }),
        };
      }
      const { name } = call.function;
      const original = originals?.get(name);
      const args = original ? dropStrictNulls(call.function.arguments, original) : call.function.arguments;
      const content = await host.dispatch(name, args, { signal, sessionId });
      return { role: 'tool', tool_call_id: call.id, content };
    }),
  );
}
