/**
 * What a tier's answer to one handler call becomes for its caller: a runner
 * failure or the handler's error as a coded failure, a result capped again
 * (a misbehaving tier cannot exceed the limit), rich content kept when it
 * fits. Pure, so the host's dispatch and a worker that ran a nested call
 * handed to it (see HandOff in sandbox/runner.ts) reach the same outcome.
 */
import { cappedFailure, failure, type CallOutcome, type RichContent } from './outcome.js';
import { capText } from './normalize.js';
import { describeRunnerFailure, type RunOutcome, type RunnerFailure } from './runner-failure.js';
import { changedReason, pinChangeOf } from './pins.js';
import type { NormalizedResult, TierCall } from './protocol.js';

export type { TierCall };
import type { ToolErrorCode } from './errors.js';

const FAILURE_CODES = {
  timeout: 'TOOL_TIMEOUT',
  cancelled: 'TOOL_CANCELLED',
  'queue-full': 'QUEUE_FULL',
  crashed: 'TOOL_CRASHED',
  unreachable: 'TOOL_UNREACHABLE',
  closed: 'HOST_CLOSED',
  credentials: 'CREDENTIALS_UNAVAILABLE',
} as const satisfies Record<RunnerFailure['kind'], ToolErrorCode>;

/** The outcome of a call its runner could not deliver. */
function runnerFailure(name: string, f: RunnerFailure): CallOutcome {
  if (f.kind === 'queue-full') {
    const message = `${name} ${describeRunnerFailure(f)}. Retry later.`;
    return f.retryAfterMs === undefined
      ? failure('QUEUE_FULL', message)
      : { ok: false, code: 'QUEUE_FULL', message, retryAfterMs: f.retryAfterMs };
  }
  return failure(FAILURE_CODES[f.kind], `${name} ${describeRunnerFailure(f)}`);
}

/** The caller's outcome of a handler call the tier answered with `outcome`. */
export function tierOutcome(call: TierCall, outcome: RunOutcome<NormalizedResult>): CallOutcome {
  const { tool: name, timeoutMs, maxResultChars } = call;
  if (!outcome.ok) {
    if ('failure' in outcome) return runnerFailure(name, outcome.failure);
    if (outcome.error.code === 'TOOL_TIMEOUT') return runnerFailure(name, { kind: 'timeout', timeoutMs });
    if (outcome.error.code === 'TOOL_CANCELLED') return runnerFailure(name, { kind: 'cancelled' });
    // The plugin's pinned code changed: the host hides its tools from now on, and this call says so already.
    const changed = pinChangeOf(outcome.error);
    if (changed) return failure('TOOL_NOT_EXPOSED', `tool '${name}' is not available here: ${changedReason(changed)}`);
    if (outcome.error.code === 'TOOL_RESULT_INVALID') {
      const { plugin } = call;
      return failure(
        'TOOL_RESULT_INVALID',
        `${name} (plugin ${plugin}) ${outcome.error.message} This is a bug in ${plugin}, not in the call: ` +
          `report it to the plugin's author.`,
      );
    }
    // INVALID_ARGUMENTS: a tool's Standard Schema refused the arguments in its tier
    // (sandbox/worker/standard-schema.ts).
    const code =
      outcome.error.code === 'PERMISSION_DENIED' || outcome.error.code === 'INVALID_ARGUMENTS'
        ? outcome.error.code
        : 'TOOL_FAILED';
    // The handler chose the message: it is bounded like a result.
    return cappedFailure(code, outcome.error.message || `${name} failed`, maxResultChars);
  }
  const { text, originalLength, content, isError } = outcome.value;
  // The worker capped already; cap again so a misbehaving tier cannot exceed the limit.
  const capped = capText(text, maxResultChars, Math.max(originalLength, text.length));
  if (!content && !isError) return { ok: true, text: capped };
  return withContent(
    isError ? failure('TOOL_FAILED', capped || `${name} failed`) : { ok: true, text: capped },
    content,
    maxResultChars,
  );
}

/**
 * Attaches rich content (MCP blocks and structured content) to an outcome when it fits the result
 * cap, as JSON. Over it, nothing is cut (a cut image is no image, cut structured content matches
 * no schema): the structured content is left out when the blocks fit without it, with a text block
 * saying so; else all of it, and only the text is kept. The text says what was left out.
 */
export function withContent(
  outcome: CallOutcome,
  content: RichContent | undefined,
  maxResultChars: number,
): CallOutcome {
  if (!content) return outcome;
  const size = JSON.stringify(content).length;
  if (size <= maxResultChars) return { ...outcome, content };
  const noted = (note: string): CallOutcome =>
    outcome.ok ? { ok: true, text: outcome.text + note } : { ...outcome, message: outcome.message + note };
  if (content.structured !== undefined && content.blocks.length) {
    const structured = JSON.stringify(content.structured).length;
    const note =
      `[RESULT_TRUNCATED: the result's structured content (${structured} characters) exceeds the limit of ` +
      `${maxResultChars}; it is left out]`;
    const blocks = [...content.blocks, { type: 'text' as const, text: note }];
    if (JSON.stringify({ blocks }).length <= maxResultChars) return { ...noted(`\n${note}`), content: { blocks } };
  }
  return noted(
    `\n[RESULT_TRUNCATED: the result's content blocks (${size} characters) exceed the limit of ` +
      `${maxResultChars}; only their text is shown]`,
  );
}
